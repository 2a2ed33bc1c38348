package main

import (
  "encoding/json"
  "fmt"
  "io"
  "os"
  "time"
)

type result struct {
  Type   string `json:"type"`
  Value  any    `json:"value"`
  Time   string `json:"time"`
  Output string `json:"output,omitempty"`
}

func main() {
  var (
    start_   time.Time
    result_  result
    reader_  *os.File
    writer_  *os.File
    err_     error
    stdout_  = os.Stdout
    results_ = make([]result, 0, 3)
  )
  var a1 int = 1
  var b1 int = 1
  reader_, writer_, err_ = os.Pipe()
  if err_ == nil {
    os.Stdout = writer_
  }
  start_ = time.Now()
  result_ = result{Type: "result"}
  result_.Value = solution(a1, b1)
  result_.Time = fmt.Sprintf("%.7f", float64(time.Since(start_).Nanoseconds())/float64(time.Second))
  os.Stdout = stdout_
  if writer_ != nil {
    writer_.Close()
    if out_, e := io.ReadAll(reader_); e == nil {
      result_.Output = string(out_)
    }
    reader_.Close()
  }
  results_ = append(results_, result_)
  var a2 int = 2
  var b2 int = 1
  reader_, writer_, err_ = os.Pipe()
  if err_ == nil {
    os.Stdout = writer_
  }
  start_ = time.Now()
  result_ = result{Type: "result"}
  result_.Value = solution(a2, b2)
  result_.Time = fmt.Sprintf("%.7f", float64(time.Since(start_).Nanoseconds())/float64(time.Second))
  os.Stdout = stdout_
  if writer_ != nil {
    writer_.Close()
    if out_, e := io.ReadAll(reader_); e == nil {
      result_.Output = string(out_)
    }
    reader_.Close()
  }
  results_ = append(results_, result_)
  var a3 int = 3
  var b3 int = 2
  reader_, writer_, err_ = os.Pipe()
  if err_ == nil {
    os.Stdout = writer_
  }
  start_ = time.Now()
  result_ = result{Type: "result"}
  result_.Value = solution(a3, b3)
  result_.Time = fmt.Sprintf("%.7f", float64(time.Since(start_).Nanoseconds())/float64(time.Second))
  os.Stdout = stdout_
  if writer_ != nil {
    writer_.Close()
    if out_, e := io.ReadAll(reader_); e == nil {
      result_.Output = string(out_)
    }
    reader_.Close()
  }
  results_ = append(results_, result_)
  if err_ = json.NewEncoder(stdout_).Encode(results_); err_ != nil {
    fmt.Fprintln(stdout_, "Marshaler error")
  }
}
