#pragma once
// What every SQLite file keval reads or writes throws: one line, naming the file.
#include <stdexcept>

namespace keval {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace keval
