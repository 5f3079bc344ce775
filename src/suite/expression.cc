#include "suite/expression.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/near_name.h"

namespace keval {
namespace {

// Recursive descent: sum := product (('+'|'-') product)*; product := power (('*'|'/') power)*;
// power := unary ('**' power)?; unary := '-' unary | atom; atom := number | name | '(' sum ')'.
class Parser {
 public:
  Parser(const std::string& text, const Symbols* symbols) : text_(text), symbols_(symbols) {}

  double parse_all() {
    double value = sum();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return value;
  }

  std::set<std::string> used;

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(const std::string& token) {
    skip_space();
    if (text_.compare(pos_, token.size(), token) == 0) {
      // '*' must not swallow the first half of '**'.
      if (token == "*" && text_.compare(pos_, 2, "**") == 0) return false;
      pos_ += token.size();
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("expression \"" + text_ + "\": " + what + " at column " +
                                std::to_string(pos_ + 1));
  }
  double sum() {
    double value = product();
    while (true) {
      if (take("+")) value += product();
      else if (take("-")) value -= product();
      else return value;
    }
  }
  double product() {
    double value = power();
    while (true) {
      if (take("*")) value *= power();
      else if (take("/")) value /= power();
      else return value;
    }
  }
  double power() {
    double base = unary();
    if (take("**")) return std::pow(base, power());
    return base;
  }
  double unary() {
    if (take("-")) return -unary();
    return atom();
  }
  double atom() {
    skip_space();
    if (take("(")) {
      double value = sum();
      if (!take(")")) fail("missing ')'");
      return value;
    }
    if (pos_ >= text_.size()) fail("unexpected end");
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      size_t used_chars = 0;
      double value = std::stod(text_.substr(pos_), &used_chars);
      pos_ += used_chars;
      return value;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      std::string name = text_.substr(start, pos_ - start);
      used.insert(name);
      if (!symbols_) return 1.0;
      auto found = symbols_->find(name);
      if (found == symbols_->end()) {
        std::vector<std::string> known;
        for (const auto& [symbol, value] : *symbols_) known.push_back(symbol);
        pos_ = start;
        fail("unknown symbol \"" + name + "\"" + did_you_mean(name, known));
      }
      return found->second;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  const std::string& text_;
  const Symbols* symbols_;
  size_t pos_ = 0;
};

}  // namespace

double evaluate_expression(const std::string& text, const Symbols& symbols) {
  Parser parser(text, &symbols);
  return parser.parse_all();
}

std::set<std::string> expression_symbols(const std::string& text) {
  Parser parser(text, nullptr);
  parser.parse_all();
  return parser.used;
}

}  // namespace keval
