/* cb_runtime.d - what a client-generated checker.d relies on (runcell's D
 * contract; Codebattle never had a D image).
 *
 * check/checker.d does `static import solution; import cb_runtime;` and per
 * assert `results ~= runTest(() => solution.solution(a1, b1));`, catching
 * Throwable into `results ~= errorLine(e.msg);`, then `finish(results);`.
 * runTest points fd 1 at a scratch file while the solution runs, so what it
 * prints (writeln or printf) lands in the item's "output"; finish prints
 * one item per line:
 *   {"type":"result","value":<json>,"output":"...","time":"0.0000012"}
 */
module cb_runtime;

import core.stdc.stdio : fflush, fileno, tmpfile, FILE, fseek, ftell, fread, rewind, SEEK_END;
import core.sys.posix.unistd : dup, dup2, close, ftruncate;
import core.time : MonoTime;
import std.array : appender, Appender;
import std.conv : to;
import std.format : format;
import std.math : isFinite;
import std.stdio : stdout, write;
import std.traits : isAssociativeArray, isFloatingPoint, isIntegral, isSomeString, isArray, isBoolean,
    isSomeChar;

void toJson(T)(ref Appender!string o, T v)
{
    static if (is(T == typeof(null)))
        o.put("null");
    else static if (isBoolean!T)
        o.put(v ? "true" : "false");
    else static if (isIntegral!T)
        o.put(v.to!string);
    else static if (isFloatingPoint!T)
    {
        if (!isFinite(v))
            o.put("null");
        else
        {
            // shortest text that reads back as v, and always looks like a float
            string s = format("%.15g", v);
            if (s.to!double != v)
                s = format("%.17g", v);
            o.put(s);
            bool isInt = true;
            foreach (c; s)
                if (c == '.' || c == 'e' || c == 'n' || c == 'i')
                    isInt = false;
            if (isInt)
                o.put(".0");
        }
    }
    else static if (isSomeChar!T)
        jsonString(o, [v].to!string);
    else static if (isSomeString!T)
        jsonString(o, v.to!string);
    else static if (isAssociativeArray!T)
    {
        o.put('{');
        bool first = true;
        foreach (k, x; v)
        {
            if (!first)
                o.put(',');
            first = false;
            jsonString(o, k.to!string);
            o.put(':');
            toJson(o, x);
        }
        o.put('}');
    }
    else static if (isArray!T)
    {
        o.put('[');
        foreach (i, x; v)
        {
            if (i)
                o.put(',');
            toJson(o, x);
        }
        o.put(']');
    }
    else
        jsonString(o, v.to!string);
}

void jsonString(ref Appender!string o, string s)
{
    o.put('"');
    foreach (char c; s)
    {
        switch (c)
        {
        case '"': o.put(`\"`); break;
        case '\\': o.put(`\\`); break;
        case '\n': o.put(`\n`); break;
        case '\r': o.put(`\r`); break;
        case '\t': o.put(`\t`); break;
        default:
            if (c < 0x20)
                o.put(format(`\u%04x`, cast(int) c));
            else
                o.put(c);
        }
    }
    o.put('"');
}

private FILE* scratch;
private int savedStdout = -1;

private void captureStart()
{
    stdout.flush();
    if (scratch is null)
        scratch = tmpfile();
    if (scratch is null)
        return;
    if (savedStdout < 0)
        savedStdout = dup(1);
    dup2(fileno(scratch), 1);
}

private string captureEnd()
{
    stdout.flush();
    fflush(null);
    if (scratch is null || savedStdout < 0)
        return "";
    dup2(savedStdout, 1);
    fseek(scratch, 0, SEEK_END);
    auto size = ftell(scratch);
    rewind(scratch);
    auto buf = new char[size > 0 ? size : 0];
    if (size > 0)
        fread(buf.ptr, 1, size, scratch);
    ftruncate(fileno(scratch), 0);
    rewind(scratch);
    return buf.idup;
}

string runTest(F)(F fn)
{
    captureStart();
    auto start = MonoTime.currTime;
    scope (failure)
        captureEnd();
    auto value = fn();
    auto took = (MonoTime.currTime - start).total!"nsecs" / 1e9;
    auto output = captureEnd();
    auto o = appender!string;
    o.put(`{"type":"result","value":`);
    toJson(o, value);
    o.put(`,"output":`);
    jsonString(o, output);
    o.put(format(`,"time":"%.7f"}`, took));
    return o.data;
}

string errorLine(const(char)[] msg)
{
    auto o = appender!string;
    o.put(`{"type":"error","value":`);
    jsonString(o, msg.idup);
    o.put("}");
    return o.data;
}

void finish(string[] results)
{
    foreach (r; results)
        write(r, "\n");
    stdout.flush();
}
