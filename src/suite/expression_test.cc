#include "suite/expression.h"

#include <gtest/gtest.h>

namespace keval {

TEST(ExpressionTest, EvaluatesArithmeticWithPrecedence) {
  Symbols s = {{"M", 4}, {"N", 8}, {"elem", 2}};
  EXPECT_DOUBLE_EQ(evaluate_expression("2 * M * N * elem", s), 128);
  EXPECT_DOUBLE_EQ(evaluate_expression("M + N * 2", s), 20);
  EXPECT_DOUBLE_EQ(evaluate_expression("(M + N) * 2", s), 24);
  EXPECT_DOUBLE_EQ(evaluate_expression("2 ** 3 ** 2", s), 512);
  EXPECT_DOUBLE_EQ(evaluate_expression("-M + 1e3", s), 996);
  EXPECT_DOUBLE_EQ(evaluate_expression("N / M", s), 2);
}

TEST(ExpressionTest, UnknownSymbolSuggestsNearName) {
  Symbols s = {{"M", 4}, {"N", 8}};
  try {
    evaluate_expression("M * NN", s);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown symbol \"NN\" (did you mean \"N\"?)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExpressionTest, RejectsMalformedText) {
  EXPECT_THROW(evaluate_expression("(M * 2", {{"M", 1}}), std::invalid_argument);
  EXPECT_THROW(evaluate_expression("M $ 2", {{"M", 1}}), std::invalid_argument);
  EXPECT_THROW(evaluate_expression("", {}), std::invalid_argument);
}

TEST(ExpressionTest, ListsSymbols) {
  EXPECT_EQ(expression_symbols("B * S * (H + 2) * elem"),
            (std::set<std::string>{"B", "S", "H", "elem"}));
}

}  // namespace keval
