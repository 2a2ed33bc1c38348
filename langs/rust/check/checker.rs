#![allow(warnings)]

use libc::c_int;
use serde::Serialize;
use serde_with::{serde_as, DurationSecondsWithFrac};
use std::{
    collections::HashMap,
    fs::File,
    io::{self, Read, Write},
    os::fd::{AsRawFd, FromRawFd},
    process::exit,
    time::{self, Duration},
};

mod solution;

#[serde_as]
#[derive(Serialize, Debug)]
struct Result<T> {
    #[serde(rename = "type")]
    typ: String,
    value: T,
    #[serde_as(as = "DurationSecondsWithFrac<String>")]
    time: Duration,
    #[serde(skip_serializing_if = "String::is_empty")]
    output: String,
}

fn pipe() -> std::io::Result<(File, File)> {
    let mut fds: [c_int; 2] = [0; 2];
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::new(io::ErrorKind::Other, "pipe"));
    }
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

fn main() {
    let stdout_ = unsafe { File::from_raw_fd(libc::dup(io::stdout().as_raw_fd())) };
    let mut results_ = Vec::with_capacity(3);
    {
        let a1: i64 = 1;
        let b1: i64 = 1;
        let (reader_, writer_) = match pipe() {
            Ok((r, w)) => (Some(r), Some(w)),
            Err(_) => (None, None),
        };
        if let Some(w) = writer_ {
            unsafe { libc::dup2(w.as_raw_fd(), io::stdout().as_raw_fd()); }
        }
        let start_ = time::Instant::now();
        let mut result_ = Result {
            typ: String::from("result"),
            value: solution::solution(a1, b1),
            time: start_.elapsed(),
            output: String::new(),
        };
        if let Some(mut r) = reader_ {
            let _ = io::stdout().flush();
            unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()); }
            let _ = r.read_to_string(&mut result_.output);
        }
        results_.push(result_);
    }
    {
        let a2: i64 = 2;
        let b2: i64 = 1;
        let (reader_, writer_) = match pipe() {
            Ok((r, w)) => (Some(r), Some(w)),
            Err(_) => (None, None),
        };
        if let Some(w) = writer_ {
            unsafe { libc::dup2(w.as_raw_fd(), io::stdout().as_raw_fd()); }
        }
        let start_ = time::Instant::now();
        let mut result_ = Result {
            typ: String::from("result"),
            value: solution::solution(a2, b2),
            time: start_.elapsed(),
            output: String::new(),
        };
        if let Some(mut r) = reader_ {
            let _ = io::stdout().flush();
            unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()); }
            let _ = r.read_to_string(&mut result_.output);
        }
        results_.push(result_);
    }
    {
        let a3: i64 = 3;
        let b3: i64 = 2;
        let (reader_, writer_) = match pipe() {
            Ok((r, w)) => (Some(r), Some(w)),
            Err(_) => (None, None),
        };
        if let Some(w) = writer_ {
            unsafe { libc::dup2(w.as_raw_fd(), io::stdout().as_raw_fd()); }
        }
        let start_ = time::Instant::now();
        let mut result_ = Result {
            typ: String::from("result"),
            value: solution::solution(a3, b3),
            time: start_.elapsed(),
            output: String::new(),
        };
        if let Some(mut r) = reader_ {
            let _ = io::stdout().flush();
            unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()); }
            let _ = r.read_to_string(&mut result_.output);
        }
        results_.push(result_);
    }
    unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()); }
    let mut out_ = io::stdout().lock();
    if serde_json::to_writer(&mut out_, &results_).is_err() {
        eprintln!("Encoding error");
        exit(0);
    }
    let _ = out_.flush();
}
