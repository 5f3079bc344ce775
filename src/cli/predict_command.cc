// keval predict train|eval|noise: the baseline code->latency predictor and the noise ceiling.
#include "cli/commands.h"
#include "cli/dataset_tool.h"

namespace keval {
namespace {

struct PredictArgs {
  std::string data, model, group = "full", first, second, python;
};

}  // namespace

void add_predict_command(CLI::App& app, CommandAction& action) {
  auto* predict = app.add_subcommand("predict", "baseline latency predictor on a dataset export (docs/dataset.md)");
  predict->require_subcommand(1);
  auto args = std::make_shared<PredictArgs>();
  auto* train = predict->add_subcommand("train", "fit on the export's train split");
  auto* eval = predict->add_subcommand("eval", "rank correlations, best-within-5%, MAPE, fail AUROC on held-out problems");
  auto* noise = predict->add_subcommand("noise", "test-retest within-problem Spearman of two exports of the same programs");
  for (auto* cmd : {train, eval}) {
    cmd->add_option("--data", args->data, "a `keval dataset export` folder (or one split's file)")->required();
    cmd->add_option("--model", args->model, "the model file")->required();
  }
  eval->add_option("--group", args->group, "holdout group: full (default), ninety or half")
      ->check(CLI::IsMember({"full", "ninety", "half"}));
  noise->add_option("--first", args->first, "export of the first timing")->required();
  noise->add_option("--second", args->second, "export of the second timing")->required();
  for (auto* cmd : {train, eval, noise}) {
    cmd->add_option("--python", args->python, "Python interpreter (default: $KEVAL_PYTHON, else python3)");
  }
  train->callback([=, &action] {
    action = [=] { use_python(args->python); run_dataset_tool({"train", "--data", args->data, "--model", args->model}); return 0; };
  });
  eval->callback([=, &action] {
    action = [=] {
      use_python(args->python);
      run_dataset_tool({"eval", "--data", args->data, "--model", args->model, "--group", args->group});
      return 0;
    };
  });
  noise->callback([=, &action] {
    action = [=] { use_python(args->python); run_dataset_tool({"noise", "--first", args->first, "--second", args->second}); return 0; };
  });
}

}  // namespace keval
