package solution;

public class Solution {
    public Integer solution(Integer a, Integer b) {
        return a + b;
    }
}
