// The typed parse against the protocol's schema: every example the schema gives parses, every
// field the parse needs is one the schema requires, and a message missing one, or holding a
// value of the wrong type, is a fault that names the field.
#include "facts/runner_message.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <set>

#include "facts/job_outcome.h"

namespace keval {
namespace {

using nlohmann::json;

const json& schema() {
  static const json loaded = [] {
    std::ifstream in(std::string(KEVAL_SOURCE_DIR) + "/runner/keval_runner/protocol/messages.schema.json");
    return json::parse(in);
  }();
  return loaded;
}

// (type, example) of every message type's examples.
std::vector<std::pair<std::string, json>> examples() {
  std::vector<std::pair<std::string, json>> out;
  for (const auto& type : schema()["properties"]["type"]["enum"]) {
    for (const auto& example : schema()["$defs"][type.get<std::string>()]["examples"]) {
      out.emplace_back(type.get<std::string>(), example);
    }
  }
  return out;
}

// Whether `field` is in a `required` list anywhere in `schema` (a branch's too).
bool required_somewhere(const json& schema, const std::string& field) {
  if (schema.is_object()) {
    if (auto found = schema.find("required"); found != schema.end()) {
      for (const auto& name : *found) {
        if (name == field) return true;
      }
    }
    for (const auto& [key, value] : schema.items()) {
      if (key != "examples" && required_somewhere(value, field)) return true;
    }
  } else if (schema.is_array()) {
    for (const auto& item : schema) {
      if (required_somewhere(item, field)) return true;
    }
  }
  return false;
}

std::string fault_of(const json& message) { return parse_runner_message(message).fault; }

TEST(RunnerMessageTest, SchemaAndParserKnowTheSameTypes) {
  std::set<std::string> in_schema, parsed(runner_message_types().begin(), runner_message_types().end());
  for (const auto& type : schema()["properties"]["type"]["enum"]) in_schema.insert(type.get<std::string>());
  EXPECT_EQ(in_schema, parsed);
}

TEST(RunnerMessageTest, EverySchemaExampleParses) {
  size_t count = 0;
  for (const auto& [type, example] : examples()) {
    const Parsed<RunnerMessage> parsed = parse_runner_message(example);
    EXPECT_TRUE(parsed.message.has_value()) << type << ": " << parsed.fault;
    ++count;
  }
  EXPECT_GE(count, runner_message_types().size());  // every type has an example
}

TEST(RunnerMessageTest, AFieldTheParserNeedsIsOneTheSchemaRequires) {
  size_t needed = 0;
  for (const auto& [type, example] : examples()) {
    for (const auto& [field, value] : example.items()) {
      if (field == "type") continue;
      json without = example;
      without.erase(field);
      const std::string fault = fault_of(without);
      if (fault.empty()) continue;  // the controller does not read it
      // a timing message without `who` is the candidate's, which has facts a baseline's lacks
      if (type == "timing" && field == "who") continue;
      ++needed;
      EXPECT_NE(fault.find("'" + field + "'"), std::string::npos) << type << " without " << field << ": " << fault;
      EXPECT_TRUE(required_somewhere(schema()["$defs"][type], field)) << type << "." << field;
    }
  }
  EXPECT_GT(needed, 30u);
}

TEST(RunnerMessageTest, AFieldOfTheWrongTypeIsAFaultNamingIt) {
  for (const auto& [type, example] : examples()) {
    for (const auto& [field, value] : example.items()) {
      if (field == "type") continue;
      json changed = example;
      changed[field] = value.is_object() ? json("not an object") : json{{"not", "a " + field}};
      const std::string fault = fault_of(changed);
      if (fault.empty()) continue;  // not read: the schema test of the runner's messages covers it
      EXPECT_NE(fault.find("'" + field), std::string::npos) << type << "." << field << ": " << fault;
    }
  }
  // what the verdict and the engine read is always checked
  const std::vector<std::pair<std::string, std::string>> read = {
      {"call", "inputs_mutated"}, {"call", "kernels"}, {"compare", "missing"}, {"timing", "samples_ms"},
      {"kernel_profile", "own_share"}, {"error", "stage"}, {"tampering", "names"}, {"started", "pid"},
      {"exit", "code"}, {"done", "phases"}, {"variant_done", "variant"}, {"probe", "cuda"}, {"job", "job"}};
  for (const auto& [type, field] : read) {
    const std::string name = type == "job" ? "call" : type;
    json message = schema()["$defs"][name]["examples"][0];
    message[field] = json::array({json::object()});
    EXPECT_NE(fault_of(message).find("'" + field + "'"), std::string::npos) << type << "." << field;
  }
}

TEST(RunnerMessageTest, ElementsOfTheWrongTypeAreAFault) {
  json call = schema()["$defs"]["call"]["examples"][0];
  call["guard_violations"] = {"0"};
  EXPECT_EQ(fault_of(call), "fact 'guard_violations' of call message for case odd float32 seed 7 holds a string, "
                            "expected integers");
  json timing = schema()["$defs"]["timing"]["examples"][0];
  timing["samples_ms"] = {1.0, "inf", true};
  EXPECT_NE(fault_of(timing).find("'samples_ms'"), std::string::npos);
  timing["samples_ms"] = {1.0, "inf"};  // a non-finite sample is JSON's string: kept out, no fault
  EXPECT_EQ(fault_of(timing), "");
}

TEST(RunnerMessageTest, UnknownOrMissingTypeIsAFault) {
  EXPECT_EQ(fault_of({{"job", "j1"}, {"type", "turn"}}), "message type 'turn' is not in the protocol");
  EXPECT_EQ(fault_of({{"job", "j1"}}), "fact 'type' missing from a message");
  EXPECT_EQ(fault_of({{"job", "j1"}, {"type", 3}}), "fact 'type' of a message is number, expected a string");
  EXPECT_EQ(fault_of(json::array()), "a message is array, expected an object");
}

TEST(RunnerMessageTest, ValuesAreReadAsTyped) {
  const auto compare = parse_as<CompareMessage>(schema()["$defs"]["compare"]["examples"][0]);
  ASSERT_TRUE(compare.message) << compare.fault;
  ASSERT_EQ(compare.message->outputs.size(), 1u);
  const OutputComparison& out = compare.message->outputs[0];
  EXPECT_EQ(out.n_over_tol, 3);
  EXPECT_EQ(out.max_abs_err, 0.5);
  EXPECT_FALSE(out.max_rel_err.has_value());  // "inf": no finite figure
  EXPECT_EQ(out.mean_rel_err, 0.00031);
  EXPECT_EQ(out.nonzero, 1000);
  EXPECT_EQ(out.ref_nonzero, 998);
  ASSERT_EQ(out.lower_precision_err.size(), 3u);
  EXPECT_EQ(out.lower_precision_err[1].first, "float16");
  EXPECT_FALSE(out.lower_precision_err[1].second.has_value());  // "inf": that precision overflows
  json wrong = schema()["$defs"]["compare"]["examples"][0];
  wrong["outputs"][0]["lower_precision_err"]["tf32"] = "small";
  EXPECT_NE(fault_of(wrong).find("'tf32'"), std::string::npos) << fault_of(wrong);
  EXPECT_EQ(compare.message->at.text(), "case odd float32 seed 7");
  const auto error = parse_as<ErrorMessage>(schema()["$defs"]["error"]["examples"][0]);
  ASSERT_TRUE(error.message) << error.fault;
  EXPECT_EQ(error.message->at.text(), "");  // about no call
  EXPECT_EQ(error.message->line, 4);
}

TEST(RunnerMessageTest, JobOutcomeLeavesOutAndNamesWhatDoesNotParse) {
  JobOutcome job;
  job.messages = schema()["$defs"]["call"]["examples"].get<std::vector<json>>();
  job.messages.push_back(job.messages[0]);
  job.messages.back()["ok"] = "yes";
  EXPECT_EQ(job.messages_of<CallMessage>().size(), 1u);
  EXPECT_EQ(*job.first_fault(), "fact 'ok' of call message for case odd float32 seed 7 is string, expected a boolean");
  job.messages.pop_back();
  EXPECT_FALSE(job.first_fault().has_value());
}

}  // namespace
}  // namespace keval
