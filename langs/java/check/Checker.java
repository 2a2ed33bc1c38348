package solution;

import java.io.*;
import java.util.*;
import static java.util.Map.entry;

import com.google.gson.Gson;

public class Checker {
    public static void main(String... args_) {
        PrintStream realOut_ = System.out;
        List<AssertResult> results_ = new ArrayList<AssertResult>();
        try {
            Solution instance_ = new Solution();
            ByteArrayOutputStream captured_ = new ByteArrayOutputStream();
            System.setOut(new PrintStream(captured_));
            long start_;
            String time_;
            Integer a1 = 1;
            Integer b1 = 1;
            start_ = System.nanoTime();
            Object result1_ = instance_.solution(a1, b1);
            time_ = String.format("%.7f", (System.nanoTime() - start_) / 1_000_000_000.0);
            results_.add(new AssertResult(result1_, takeOutput(captured_), time_));
            Integer a2 = 2;
            Integer b2 = 1;
            start_ = System.nanoTime();
            Object result2_ = instance_.solution(a2, b2);
            time_ = String.format("%.7f", (System.nanoTime() - start_) / 1_000_000_000.0);
            results_.add(new AssertResult(result2_, takeOutput(captured_), time_));
            Integer a3 = 3;
            Integer b3 = 2;
            start_ = System.nanoTime();
            Object result3_ = instance_.solution(a3, b3);
            time_ = String.format("%.7f", (System.nanoTime() - start_) / 1_000_000_000.0);
            results_.add(new AssertResult(result3_, takeOutput(captured_), time_));
            System.setOut(realOut_);
            for (AssertResult r : results_) System.out.println(r);
        } catch (Exception e) {
            System.setOut(realOut_);
            e.printStackTrace(System.out);
            StringWriter trace_ = new StringWriter();
            e.printStackTrace(new PrintWriter(trace_));
            System.out.println(new ErrorMessage(trace_.toString()));
        }
    }

    private static String takeOutput(ByteArrayOutputStream captured) {
        System.out.flush();
        String text = captured.toString();
        captured.reset();
        return text;
    }
}

class AssertResult {
    private String type = "result";
    private Object value;
    private String output;
    private String time;

    AssertResult(Object value, String output, String time) {
        this.value = value;
        this.output = output;
        this.time = time;
    }

    @Override
    public String toString() { return new Gson().toJson(this); }
}

class ErrorMessage {
    private String type = "error";
    private String value;

    ErrorMessage(String value) { this.value = value; }

    @Override
    public String toString() { return new Gson().toJson(this); }
}
