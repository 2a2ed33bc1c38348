# checker.exs - runs check/solution.exs against check/asserts.json.
#
# Prints ONE JSON array of items %{"type" => "result" | "error", "value",
# "output", "time" (milliseconds, a string)}.  Each call runs with its group
# leader pointed at a StringIO, so IO.puts output lands in the item's
# output and never in the JSON stream.  A solution that does not compile
# gives one error item and exit 0, like Codebattle's elixir image.

defmodule CbJson do
  @moduledoc "Just enough JSON for asserts and items (Elixir 1.14 has none)."

  def encode(nil), do: "null"
  def encode(true), do: "true"
  def encode(false), do: "false"
  def encode(n) when is_integer(n), do: Integer.to_string(n)

  def encode(f) when is_float(f) do
    # shortest round-trip form; JSON has no "1.0e5" problem, keep Erlang's
    :erlang.float_to_binary(f, [:short])
  end

  def encode(a) when is_atom(a), do: encode(Atom.to_string(a))
  def encode(s) when is_binary(s), do: "\"" <> escape(s, "") <> "\""
  def encode(l) when is_list(l), do: "[" <> Enum.map_join(l, ",", &encode/1) <> "]"
  def encode(t) when is_tuple(t), do: encode(Tuple.to_list(t))

  def encode(m) when is_map(m) do
    "{" <> Enum.map_join(m, ",", fn {k, v} -> encode(to_string(k)) <> ":" <> encode(v) end) <> "}"
  end

  def encode(other), do: encode(inspect(other))

  defp escape(<<>>, acc), do: acc
  defp escape(<<?", rest::binary>>, acc), do: escape(rest, acc <> "\\\"")
  defp escape(<<?\\, rest::binary>>, acc), do: escape(rest, acc <> "\\\\")
  defp escape(<<?\n, rest::binary>>, acc), do: escape(rest, acc <> "\\n")
  defp escape(<<?\r, rest::binary>>, acc), do: escape(rest, acc <> "\\r")
  defp escape(<<?\t, rest::binary>>, acc), do: escape(rest, acc <> "\\t")

  defp escape(<<c, rest::binary>>, acc) when c < 0x20,
    do: escape(rest, acc <> "\\u" <> String.pad_leading(Integer.to_string(c, 16), 4, "0"))

  defp escape(<<c::utf8, rest::binary>>, acc), do: escape(rest, acc <> <<c::utf8>>)
  # invalid UTF-8: replace the byte so the output stays valid JSON
  defp escape(<<_, rest::binary>>, acc), do: escape(rest, acc <> "\uFFFD")

  def decode(text) do
    {value, rest} = value(skip(text))
    "" = skip(rest)
    value
  end

  defp skip(<<c, rest::binary>>) when c in ' \t\r\n', do: skip(rest)
  defp skip(rest), do: rest

  defp value("null" <> rest), do: {nil, rest}
  defp value("true" <> rest), do: {true, rest}
  defp value("false" <> rest), do: {false, rest}
  defp value("\"" <> rest), do: string(rest, [])
  defp value("[" <> rest), do: list(skip(rest), [])
  defp value("{" <> rest), do: object(skip(rest), %{})
  defp value(rest), do: number(rest)

  defp list("]" <> rest, acc), do: {Enum.reverse(acc), rest}

  defp list(text, acc) do
    {v, rest} = value(skip(text))

    case skip(rest) do
      "," <> more -> list(skip(more), [v | acc])
      "]" <> more -> {Enum.reverse([v | acc]), more}
    end
  end

  defp object("}" <> rest, acc), do: {acc, rest}

  defp object("\"" <> text, acc) do
    {k, rest} = string(text, [])
    ":" <> rest = skip(rest)
    {v, rest} = value(skip(rest))

    case skip(rest) do
      "," <> more -> object(skip(more), Map.put(acc, k, v))
      "}" <> more -> {Map.put(acc, k, v), more}
    end
  end

  defp string("\"" <> rest, acc), do: {IO.iodata_to_binary(Enum.reverse(acc)), rest}
  defp string("\\n" <> rest, acc), do: string(rest, ["\n" | acc])
  defp string("\\t" <> rest, acc), do: string(rest, ["\t" | acc])
  defp string("\\r" <> rest, acc), do: string(rest, ["\r" | acc])
  defp string("\\b" <> rest, acc), do: string(rest, ["\b" | acc])
  defp string("\\f" <> rest, acc), do: string(rest, ["\f" | acc])
  defp string("\\/" <> rest, acc), do: string(rest, ["/" | acc])
  defp string("\\\\" <> rest, acc), do: string(rest, ["\\" | acc])
  defp string("\\\"" <> rest, acc), do: string(rest, ["\"" | acc])

  defp string("\\u" <> <<h::binary-size(4), rest::binary>>, acc) do
    code = String.to_integer(h, 16)

    case {code, rest} do
      {hi, "\\u" <> <<l::binary-size(4), more::binary>>} when hi in 0xD800..0xDBFF ->
        lo = String.to_integer(l, 16)
        string(more, [<<0x10000 + (hi - 0xD800) * 0x400 + (lo - 0xDC00)::utf8>> | acc])

      _ ->
        string(rest, [<<code::utf8>> | acc])
    end
  end

  defp string(<<c::utf8, rest::binary>>, acc), do: string(rest, [<<c::utf8>> | acc])

  defp number(text) do
    [num | _] = Regex.run(~r/^-?\d+(\.\d+)?([eE][-+]?\d+)?/, text)
    rest = binary_part(text, byte_size(num), byte_size(text) - byte_size(num))

    if String.contains?(num, [".", "e", "E"]) do
      # Erlang wants a fraction before an exponent ("1e5" -> "1.0e5")
      fixed = Regex.replace(~r/^(-?\d+)([eE])/, num, "\\1.0\\2")
      {String.to_float(fixed), rest}
    else
      {String.to_integer(num), rest}
    end
  end
end

defmodule CbChecker do
  def emit(items) do
    IO.write("\n" <> CbJson.encode(items) <> "\n")
  end

  def run_one(args) do
    {:ok, dev} = StringIO.open("")
    leader = Process.group_leader()
    Process.group_leader(self(), dev)
    start = System.monotonic_time(:microsecond)

    {type, value} =
      try do
        {"result", apply(Solution, :solution, args)}
      rescue
        e -> {"error", Exception.message(e)}
      catch
        kind, reason -> {"error", Exception.format_banner(kind, reason)}
      end

    elapsed = System.monotonic_time(:microsecond) - start
    Process.group_leader(self(), leader)
    {_, output} = StringIO.contents(dev)
    StringIO.close(dev)
    ms = :erlang.float_to_binary(elapsed / 1000, decimals: 3)
    %{"type" => type, "value" => value, "output" => output, "time" => ms}
  end

  def main do
    calls = CbJson.decode(File.read!("check/asserts.json"))["arguments"]

    loaded =
      try do
        # load-time prints are dropped: only per-call output is reported
        {:ok, dev} = StringIO.open("")
        leader = Process.group_leader()
        Process.group_leader(self(), dev)

        try do
          Code.eval_file("./check/solution.exs")
        after
          Process.group_leader(self(), leader)
        end

        if Code.ensure_loaded?(Solution),
          do: :ok,
          else: {:error, "check/solution.exs does not define module Solution"}
      rescue
        e -> {:error, Exception.format(:error, e, [])}
      catch
        kind, reason -> {:error, Exception.format_banner(kind, reason)}
      end

    case loaded do
      :ok -> emit(Enum.map(calls, &run_one/1))
      {:error, message} -> emit([%{"type" => "error", "value" => message, "output" => "", "time" => "0"}])
    end
  end
end

CbChecker.main()
System.halt(0)
