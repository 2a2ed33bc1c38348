# checker.rb - runs check/solution.rb against check/asserts.json.
#
# Prints ONE JSON array on the real stdout, on a line of its own; per
# assert an item {"type" => "result"|"error", "value", "output", "time"}.
# A solution that does not load (syntax error, exception at top level)
# gives one error item and exit 0, as Codebattle's ruby image does.
# $stdout is swapped for a StringIO per call, so puts/print land in the
# item's output.  Raw writes to fd 1 (STDOUT.syswrite, child processes) go
# straight to the real stdout, unbuffered, so they reach the response even
# when the timeout kills the run or the solution leaves by exit!
# (issue 16); the array's leading newline keeps it on a line of its own
# for the client's line-by-line fallback.
require 'json'
require 'stringio'

real_out = STDOUT
STDOUT.sync = true

emit = lambda do |items|
  real_out.write("\n#{JSON.generate(items)}\n")
  real_out.flush
end

begin
  calls = JSON.parse(File.read(File.join(__dir__, 'check', 'asserts.json')))['arguments']
  $stdout = StringIO.new
  require_relative './check/solution'
  $stdout = STDOUT
rescue Exception => e # rubocop:disable Lint/RescueException -- SyntaxError is not a StandardError
  $stdout = STDOUT
  emit.call([{ 'type' => 'error', 'value' => "#{e.class}: #{e.message}", 'output' => '', 'time' => '0' }])
  exit 0
end

items = calls.map do |args|
  captured = StringIO.new
  $stdout = captured
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  begin
    value = solution(*args)
    kind = 'result'
  rescue StandardError, ScriptError, SystemStackError => e
    value = e.message
    kind = 'error'
  end
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
  $stdout = STDOUT
  item = { 'type' => kind, 'value' => value, 'output' => captured.string,
           'time' => format('%.7f', elapsed) }
  begin
    JSON.generate(item)
  rescue StandardError => e
    item = { 'type' => 'error', 'value' => "result is not JSON: #{e.message}", 'output' => item['output'],
             'time' => item['time'] }
  end
  item
end
emit.call(items)
