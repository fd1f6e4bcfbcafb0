// One named logger per module ("consumer", "scheduler", "executor",
// "storage", "app", ...). Messages are key=value; payloads are never logged.
//
// spdlog is the backend, used in core/src only: this header names neither
// spdlog nor fmt, so translation units that include torch's headers (libtorch
// bundles a copy of fmt that clashes with the one spdlog uses) log through it
// like every other module.
//
// Formats are absl::StrFormat's conversions (%d, %s, %.1f, ...) plus %v, the
// value as spdlog's "{}" printed it: bool as true/false, char as the
// character, other integers and enums in decimal, floating point in the
// shortest form that reads back as the same value (0.1, 2, 1e-05), strings as
// they are. Every format is checked against its arguments' types at compile
// time: GCC does not run absl's own checker, and absl formats a mismatch as
// an empty string at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace qinfer {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError };

namespace log_internal {

// What a format conversion may do with an argument of type T.
enum class Kind { kBool, kChar, kInteger, kFloat, kString, kPointer, kOther };

template <typename T>
constexpr Kind KindOf() {
  using D = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<D, bool>) {
    return Kind::kBool;
  } else if constexpr (std::is_same_v<D, char>) {
    return Kind::kChar;
  } else if constexpr (std::is_integral_v<D> || std::is_enum_v<D>) {
    return Kind::kInteger;
  } else if constexpr (std::is_floating_point_v<D>) {
    return Kind::kFloat;
  } else if constexpr (std::is_convertible_v<const D&, std::string_view> ||
                       std::is_convertible_v<const D&, absl::string_view>) {
    return Kind::kString;
  } else if constexpr (std::is_pointer_v<D>) {
    return Kind::kPointer;
  } else {
    return Kind::kOther;
  }
}

// Not constexpr: reaching one while checking a format stops the compilation,
// and the compiler's message names the function.
void LogFormatHasMoreConversionsThanArguments();
void LogFormatHasMoreArgumentsThanConversions();
void LogFormatConversionDoesNotFitTheArgumentType();
void LogFormatConversionIsIncomplete();

constexpr bool IsIn(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }
// What may stand between a '%' and its conversion character.
inline constexpr std::string_view kFlagsWidthPrecision = "-+ #0123456789.hlLjztq";

// Whether absl::StrFormat (or %v) formats a `kind` with conversion `c`.
// bool is %v only: absl prints it as 1/0 where spdlog printed true/false.
constexpr bool Accepts(Kind kind, char c) {
  constexpr std::string_view kFloating = "fFeEgGaA";
  switch (kind) {
    case Kind::kBool:
      return c == 'v';
    case Kind::kChar:
    case Kind::kInteger:
      return c == 'v' || IsIn(c, "cdiouxX") || IsIn(c, kFloating);
    case Kind::kFloat:
      return c == 'v' || IsIn(c, kFloating);
    case Kind::kString:
      return c == 'v' || c == 's';
    case Kind::kPointer:
      return c == 'p';
    case Kind::kOther:
      return false;
  }
  return false;
}

// The absl conversion that %v becomes for a `kind` (bool and floating point
// are passed as text, see AsV).
constexpr char VConversion(Kind kind) { return kind == Kind::kChar ? 'c' : kind == Kind::kInteger ? 'd' : 's'; }

// A format checked at compile time against Args. Built implicitly from a
// string literal at a logging call.
template <typename... Args>
class LogFormat {
 public:
  consteval LogFormat(const char* text) : text_(text) {  // NOLINT: implicit by design
    constexpr Kind kinds[] = {KindOf<Args>()..., Kind::kOther};
    size_t arg = 0;
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] != '%') continue;
      if (++i < text_.size() && text_[i] == '%') continue;
      while (i < text_.size() && IsIn(text_[i], kFlagsWidthPrecision)) ++i;
      if (i == text_.size()) LogFormatConversionIsIncomplete();
      if (arg == sizeof...(Args)) LogFormatHasMoreConversionsThanArguments();
      if (!Accepts(kinds[arg], text_[i])) LogFormatConversionDoesNotFitTheArgumentType();
      if (text_[i] == 'v') v_args_ |= uint64_t{1} << arg;
      ++arg;
    }
    if (arg != sizeof...(Args)) LogFormatHasMoreArgumentsThanConversions();
  }
  std::string_view text() const { return text_; }
  // Bit i: argument i is formatted by a %v.
  uint64_t v_args() const { return v_args_; }

 private:
  static_assert(sizeof...(Args) <= 64, "at most 64 arguments per log line");
  std::string_view text_;
  uint64_t v_args_ = 0;
};

// A floating-point value formatted as spdlog's "{}" formatted it.
struct Shortest {
  double value;
  bool is_float;  // printed as the shortest float, not double
};
std::string ShortestText(Shortest v);
absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
    const Shortest& v, const absl::FormatConversionSpec& spec, absl::FormatSink* sink);

// The argument a %v formats.
template <typename T>
decltype(auto) AsV(const T& v) {
  if constexpr (KindOf<T>() == Kind::kBool) {
    return v ? "true" : "false";
  } else if constexpr (KindOf<T>() == Kind::kFloat) {
    return Shortest{double(v), std::is_same_v<std::remove_cv_t<T>, float>};
  } else {
    return (v);
  }
}

// `format` with each %v replaced by its argument's conversion (`v_conversions`,
// one per argument), then formatted by absl. Never empty for a non-empty
// format: a failure (which the compile-time check rules out) yields the
// format itself, marked.
std::string Render(std::string_view format, const char* v_conversions, absl::Span<const absl::FormatArg> args);

template <typename... Args, size_t... I>
std::string FormatIndexed(const LogFormat<Args...>& format, std::index_sequence<I...>, const Args&... args) {
  static constexpr char kVConversions[] = {VConversion(KindOf<Args>())..., '\0'};
  return Render(format.text(), kVConversions,
                {((format.v_args() >> I) & 1 ? absl::FormatArg(AsV(args)) : absl::FormatArg(args))...});
}

}  // namespace log_internal

// The format type of a logging call with arguments Args (not deduced from
// the format: the arguments decide it).
template <typename... Args>
using LogFormat = log_internal::LogFormat<std::type_identity_t<Args>...>;

// `format` applied to `args`, as a log line would carry it.
template <typename... Args>
std::string FormatLogLine(LogFormat<Args...> format, const Args&... args) {
  return log_internal::FormatIndexed(format, std::index_sequence_for<Args...>(), args...);
}

// A handle on one named logger: cheap to copy, thread-safe. Lines below the
// logger's level are neither formatted nor written.
class Log {
 public:
  bool Enabled(LogLevel level) const;

  template <typename... Args>
  void Trace(LogFormat<Args...> format, const Args&... args) const {
    At(LogLevel::kTrace, format, args...);
  }
  template <typename... Args>
  void Debug(LogFormat<Args...> format, const Args&... args) const {
    At(LogLevel::kDebug, format, args...);
  }
  template <typename... Args>
  void Info(LogFormat<Args...> format, const Args&... args) const {
    At(LogLevel::kInfo, format, args...);
  }
  template <typename... Args>
  void Warn(LogFormat<Args...> format, const Args&... args) const {
    At(LogLevel::kWarn, format, args...);
  }
  template <typename... Args>
  void Error(LogFormat<Args...> format, const Args&... args) const {
    At(LogLevel::kError, format, args...);
  }
  // At a level chosen at run time.
  template <typename... Args>
  void At(LogLevel level, LogFormat<Args...> format, const Args&... args) const {
    if (!Enabled(level)) return;
    Write(level, FormatLogLine<Args...>(format, args...));
  }

  // Writes `line` as it is (no formatting) when `level` is enabled.
  void Write(LogLevel level, std::string_view line) const;
  // Writes out what this logger buffered.
  void Flush() const;

  struct Sink;  // core/src/logging.cc

 private:
  explicit Log(std::shared_ptr<const Sink> sink) : sink_(std::move(sink)) {}
  friend Log Logger(std::string_view name);
  friend Log CaptureLogForTest(std::string_view name, std::ostream& out);

  std::shared_ptr<const Sink> sink_;
};

// The logger called `name`, created on first use: stderr, lines as
// `2024-01-02T03:04:05.678 info [name] message`, at the process's level.
// Thread-safe.
Log Logger(std::string_view name);

// Sets the level of every logger, present and future, by spdlog's level name
// (trace, debug, info, warning or warn, error or err, critical, off; any
// other name is off). Thread-safe.
void SetLogLevel(std::string_view name);

// Flushes every logger (before an exit that skips destructors).
void FlushAllLogs();

// A logger of its own (not shared by name) that writes `level message` lines
// into `out` at every level. `out` must outlive it. For tests.
Log CaptureLogForTest(std::string_view name, std::ostream& out);

// For tests: while it lives, the logger called `name` (the one Logger(name)
// returns) also writes its lines into `out`, and its level is `level`; both
// are undone at its end. `out` must outlive it.
class ScopedLogCapture {
 public:
  ScopedLogCapture(std::string_view name, std::ostream& out, LogLevel level);
  ~ScopedLogCapture();
  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;

 private:
  struct State;  // core/src/logging.cc
  std::unique_ptr<State> state_;
};

}  // namespace qinfer
