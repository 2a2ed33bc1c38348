#include "solution.cpp"

int main() {
  std::stringstream buffer_;
  std::streambuf *oldBuf_ = std::cout.rdbuf(buffer_.rdbuf());
  std::vector<std::string> finalResults_;

  try {
    int a1 = 1;
    int b1 = 1;
    RunTest(finalResults_, buffer_, [&]{ return solution(a1, b1); });
    int a2 = 2;
    int b2 = 1;
    RunTest(finalResults_, buffer_, [&]{ return solution(a2, b2); });
    int a3 = 3;
    int b3 = 2;
    RunTest(finalResults_, buffer_, [&]{ return solution(a3, b3); });
  } catch (const std::exception &e) {
    SendError(finalResults_, e.what());
  }

  std::cout.rdbuf(oldBuf_);
  for (auto const &line : finalResults_) std::cout << line << "\n";
  std::cout << buffer_.str() << "\n";
}
