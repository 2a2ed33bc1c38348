// prelude.hpp - forced into every C++ job (g++ -include), precompiled by
// install-toolchains into /opt/runcell/cpp/prelude.hpp.gch.
//
// Codebattle's client sends a checker that #includes the user's
// solution.cpp and calls RunTest(results, buffer, lambda) per assert and
// SendError(results, what) on std::exception; the solution itself has no
// #include, so the whole standard library and `using namespace std` must
// already be in scope.  This header provides exactly that: the library,
// the JSON writers (cb::emit) for the client's argument/result types, and
// RunTest/SendError printing the V2 items:
//   {"type":"result","value":<json>,"output":"<captured>","time":"0.0000001"}
//   {"type":"error","value":"<what()>"}
// It is header-only (inline) so one -include works with or without the PCH.
#ifndef RUNCELL_CB_PRELUDE_HPP
#define RUNCELL_CB_PRELUDE_HPP

#include <bits/stdc++.h>

using namespace std;

namespace cb
{

inline void
emit_string (std::ostream &o, std::string_view s)
{
  static const char hex[] = "0123456789abcdef";
  o << '"';
  for (unsigned char c : s)
    switch (c)
      {
      case '"': o << "\\\""; break;
      case '\\': o << "\\\\"; break;
      case '\n': o << "\\n"; break;
      case '\r': o << "\\r"; break;
      case '\t': o << "\\t"; break;
      case '\b': o << "\\b"; break;
      case '\f': o << "\\f"; break;
      default:
        if (c < 0x20)
          o << "\\u00" << hex[c >> 4] << hex[c & 15];
        else
          o << c;
      }
  o << '"';
}

// Shortest text that reads back as the same double, always with a
// fraction or exponent so the client sees a float; JSON has no NaN/inf.
inline void
emit_double (std::ostream &o, double d)
{
  if (!std::isfinite (d))
    {
      o << "null";
      return;
    }
  char buf[64];
  auto r = std::to_chars (buf, buf + sizeof buf, d);
  std::string_view text (buf, r.ptr - buf);
  o << text;
  if (text.find_first_of (".eEn") == std::string_view::npos)
    o << ".0";
}

inline void emit (std::ostream &o, bool v) { o << (v ? "true" : "false"); }
inline void emit (std::ostream &o, char v) { emit_string (o, std::string_view (&v, 1)); }
inline void emit (std::ostream &o, double v) { emit_double (o, v); }
inline void emit (std::ostream &o, float v) { emit_double (o, v); }
inline void emit (std::ostream &o, const std::string &v) { emit_string (o, v); }
inline void emit (std::ostream &o, const char *v) { emit_string (o, v ? v : ""); }
inline void emit (std::ostream &o, std::string_view v) { emit_string (o, v); }
inline void emit (std::ostream &o, std::nullptr_t) { o << "null"; }

template <typename T>
  requires std::is_integral_v<T> && (!std::is_same_v<T, bool>) && (!std::is_same_v<T, char>)
inline void
emit (std::ostream &o, T v)
{
  o << +v;
}

template <typename T> void emit (std::ostream &o, const std::vector<T> &v);
template <typename T, std::size_t N> void emit (std::ostream &o, const std::array<T, N> &v);
template <typename T> void emit (std::ostream &o, const std::list<T> &v);
template <typename T> void emit (std::ostream &o, const std::deque<T> &v);
template <typename T> void emit (std::ostream &o, const std::set<T> &v);
template <typename K, typename V> void emit (std::ostream &o, const std::map<K, V> &m);
template <typename K, typename V> void emit (std::ostream &o, const std::unordered_map<K, V> &m);
template <typename A, typename B> void emit (std::ostream &o, const std::pair<A, B> &p);
template <typename T> void emit (std::ostream &o, const std::optional<T> &v);

template <typename C>
void
emit_seq (std::ostream &o, const C &c)
{
  o << '[';
  bool first = true;
  for (const auto &x : c)
    {
      if (!first)
        o << ',';
      first = false;
      emit (o, x);
    }
  o << ']';
}

template <typename K>
void
emit_key (std::ostream &o, const K &k)
{
  if constexpr (std::is_convertible_v<const K &, std::string_view>)
    emit_string (o, k);
  else
    {
      // JSON keys are strings; render other key types through their JSON
      std::ostringstream s;
      emit (s, k);
      emit_string (o, s.str ());
    }
}

template <typename M>
void
emit_map (std::ostream &o, const M &m)
{
  o << '{';
  bool first = true;
  for (const auto &[k, v] : m)
    {
      if (!first)
        o << ',';
      first = false;
      emit_key (o, k);
      o << ':';
      emit (o, v);
    }
  o << '}';
}

// vector<bool> yields proxies, so it needs its own loop.
inline void
emit (std::ostream &o, const std::vector<bool> &v)
{
  o << '[';
  for (std::size_t i = 0; i < v.size (); i++)
    o << (i ? "," : "") << (v[i] ? "true" : "false");
  o << ']';
}

template <typename T> void emit (std::ostream &o, const std::vector<T> &v) { emit_seq (o, v); }
template <typename T, std::size_t N>
void emit (std::ostream &o, const std::array<T, N> &v) { emit_seq (o, v); }
template <typename T> void emit (std::ostream &o, const std::list<T> &v) { emit_seq (o, v); }
template <typename T> void emit (std::ostream &o, const std::deque<T> &v) { emit_seq (o, v); }
template <typename T> void emit (std::ostream &o, const std::set<T> &v) { emit_seq (o, v); }
template <typename K, typename V>
void emit (std::ostream &o, const std::map<K, V> &m) { emit_map (o, m); }
template <typename K, typename V>
void emit (std::ostream &o, const std::unordered_map<K, V> &m) { emit_map (o, m); }

template <typename A, typename B>
void
emit (std::ostream &o, const std::pair<A, B> &p)
{
  o << '[';
  emit (o, p.first);
  o << ',';
  emit (o, p.second);
  o << ']';
}

template <typename T>
void
emit (std::ostream &o, const std::optional<T> &v)
{
  if (v)
    emit (o, *v);
  else
    o << "null";
}

template <typename T>
std::string
to_json (const T &v)
{
  std::ostringstream o;
  emit (o, v);
  return o.str ();
}

} // namespace cb

// Runs one assert: calls fn, records its value, the time it took and what
// it printed (the checker points std::cout at `buffer`), then empties the
// buffer for the next call.  printf output bypasses std::cout: it goes to
// the real stdout, on its own line, where the client's line-by-line
// fallback ignores it.
template <typename F>
void
RunTest (std::vector<std::string> &results, std::stringstream &buffer, F &&fn)
{
  auto start = std::chrono::steady_clock::now ();
  auto value = fn ();
  std::chrono::duration<double> took = std::chrono::steady_clock::now () - start;
  std::ostringstream item;
  char time_text[32];
  std::snprintf (time_text, sizeof time_text, "%.7f", took.count ());
  item << "{\"type\":\"result\",\"value\":";
  cb::emit (item, value);
  item << ",\"output\":";
  cb::emit_string (item, buffer.str ());
  item << ",\"time\":\"" << time_text << "\"}";
  results.push_back (item.str ());
  buffer.str ("");
  buffer.clear ();
}

inline void
SendError (std::vector<std::string> &results, const char *what)
{
  results.push_back (std::string ("{\"type\":\"error\",\"value\":") + cb::to_json (what ? what : "")
                     + "}");
}

#endif
