# checker.rb - runs check/solution.rb against check/asserts.json.
#
# Prints ONE JSON array on the real stdout; per assert an item
# {"type" => "result"|"error", "value", "output", "time"}.  A solution that
# does not load (syntax error, exception at top level) gives one error item
# and exit 0, as Codebattle's ruby image does.  $stdout is swapped for a
# StringIO per call and fd 1 points at a scratch file, so nothing the
# solution prints can reach the JSON stream.
require 'json'
require 'stringio'
require 'tempfile'

real_out = IO.new(STDOUT.fileno).dup
scratch = Tempfile.create('cbout')
STDOUT.flush
STDOUT.reopen(scratch)

take_fd_output = lambda do
  STDOUT.flush
  scratch.rewind
  data = scratch.read.to_s
  scratch.rewind
  scratch.truncate(0)
  data.force_encoding('UTF-8').scrub
end

emit = lambda do |items|
  real_out.write(JSON.generate(items))
  real_out.write("\n")
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
  item = { 'type' => kind, 'value' => value, 'output' => captured.string + take_fd_output.call,
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
