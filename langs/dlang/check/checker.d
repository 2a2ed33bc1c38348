static import solution;
import cb_runtime;

void main() {
    string[] results;
    try {
        {
            long a1 = 1;
            long b1 = 1;
            results ~= runTest(() => solution.solution(a1, b1));
        }
        {
            long a2 = 2;
            long b2 = 1;
            results ~= runTest(() => solution.solution(a2, b2));
        }
        {
            long a3 = 3;
            long b3 = 2;
            results ~= runTest(() => solution.solution(a3, b3));
        }
    } catch (Throwable e) {
        results ~= errorLine(e.msg);
    }
    finish(results);
}
