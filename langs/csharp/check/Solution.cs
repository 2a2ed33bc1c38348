using System;
using System.Collections.Generic;

namespace app
{
  public class Solution
  {
    public int solution(int a, int b)
    {
      return a + b;
    }
  }
}
