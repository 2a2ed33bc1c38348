package solution

fun solution(a: Int, b: Int): Int {
    return a + b
}
