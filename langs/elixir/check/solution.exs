defmodule Solution do
  def solution(a, b) do
    a + b
  end
end
