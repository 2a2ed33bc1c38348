package solution

import java.io.ByteArrayOutputStream
import java.io.PrintStream
import java.util.ArrayList
import com.google.gson.Gson

fun main(args: Array<String>) {
  val realOut: PrintStream = System.out
  val results: ArrayList<AssertResult> = ArrayList()
  try {
    val captured = ByteArrayOutputStream()
    System.setOut(PrintStream(captured))
    var start: Long
    var time: String
    var a1: Int = 1;
    var b1: Int = 1;
    start = System.nanoTime()
    var result1: Any = solution(a1, b1)
    time = String.format("%.7f", (System.nanoTime() - start) / 1_000_000_000.0)
    results.add(AssertResult(result1, takeOutput(captured), time))
    var a2: Int = 2;
    var b2: Int = 1;
    start = System.nanoTime()
    var result2: Any = solution(a2, b2)
    time = String.format("%.7f", (System.nanoTime() - start) / 1_000_000_000.0)
    results.add(AssertResult(result2, takeOutput(captured), time))
    var a3: Int = 3;
    var b3: Int = 2;
    start = System.nanoTime()
    var result3: Any = solution(a3, b3)
    time = String.format("%.7f", (System.nanoTime() - start) / 1_000_000_000.0)
    results.add(AssertResult(result3, takeOutput(captured), time))
    System.setOut(realOut)
    results.forEach { println(it) }
  } catch (e: Exception) {
    System.setOut(realOut)
    println(ErrorMessage(e.toString()))
  }
}

fun takeOutput(captured: ByteArrayOutputStream): String {
  System.out.flush()
  val text = captured.toString()
  captured.reset()
  return text
}

data class AssertResult(val value: Any?, val output: String, val time: String) {
  private val type = "result"
  override fun toString(): String = Gson().toJson(this)
}

data class ErrorMessage(val value: String) {
  private val type = "error"
  override fun toString(): String = Gson().toJson(this)
}
