package main

func solution(a int, b int) int {
	return a + b
}
