#pragma once
// Arithmetic over named symbols, for a task's `flops` and `bytes` cost expressions.
#include <map>
#include <set>
#include <string>

namespace keval {

using Symbols = std::map<std::string, double>;

// Evaluates numbers, symbols, + - * / ** and parentheses. Throws std::invalid_argument naming the
// problem (unknown symbol with a near name, bad token, unbalanced parentheses).
double evaluate_expression(const std::string& text, const Symbols& symbols);

// The symbol names an expression uses (for validating a task before any case runs).
std::set<std::string> expression_symbols(const std::string& text);

}  // namespace keval
