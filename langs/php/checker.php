<?php
// checker.php - runs check/solution.php against check/asserts.json.
//
// Prints ONE JSON array of items {"type": "result"|"error", "value",
// "output", "time"} as the last line of stdout.  Output buffering captures
// what each call prints; warnings and notices are appended to that call's
// output instead of the stream.  A solution that fails to load exits 1
// with the message on stderr (Codebattle's parser: status "error").
// The array is preceded by a newline so that even raw writes to
// php://stdout, which bypass the buffer, leave it on a line of its own
// (the client's parser falls back to line-by-line decoding).

const JSON_FLAGS = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES
    | JSON_PRESERVE_ZERO_FRACTION | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PARTIAL_OUTPUT_ON_ERROR;

set_error_handler(function ($no, $message, $file, $line) {
    echo "PHP Warning: $message in $file on line $line\n";
    return true;
});

$calls = json_decode(file_get_contents(__DIR__ . '/check/asserts.json'), true)['arguments'];

ob_start();
try {
    require_once __DIR__ . '/check/solution.php';
} catch (Throwable $e) {
    ob_end_clean();
    fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . ' in ' . $e->getFile() . ':' . $e->getLine() . "\n");
    exit(1);
}
$loadOutput = ob_get_clean();
if (!function_exists('solution')) {
    // e.g. the text had no <?php tag and was only echoed: a load error.
    fwrite(STDERR, "check/solution.php does not define function solution()\n" . $loadOutput);
    exit(1);
}

$items = [];
foreach ($calls as $args) {
    ob_start();
    $start = hrtime(true);
    try {
        $value = solution(...$args);
        $type = 'result';
    } catch (Throwable $e) {
        $value = $e->getMessage();
        $type = 'error';
    }
    $elapsed = (hrtime(true) - $start) / 1e9;
    $output = ob_get_clean();
    $items[] = ['type' => $type, 'value' => $value, 'output' => $output,
                'time' => sprintf('%.7f', $elapsed)];
}

echo "\n" . json_encode($items, JSON_FLAGS) . "\n";
