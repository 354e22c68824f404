#pragma once
// Running the external tools of simulation and synthesis (GHDL, Verilator) through the
// shell, with their output kept in a log file.

#include <filesystem>
#include <functional>
#include <string>

namespace skeleshare::vhdl::detail {

/// `s` as one single-quoted shell word.
std::string shellQuote(const std::string& s);

/// How a command that failed ended, for an error message: "exit status 2", or "killed by
/// signal 9 (SIGKILL: most likely the system's out-of-memory killer)". A command run in
/// a subshell that a signal kills exits with status 128 + the signal.
std::string describeFailure(int waitStatus);

/// Runs `command` with its standard output and error appended to `logFile`; true on
/// exit status 0. On failure `*why` (when given) says how it ended (describeFailure).
bool runLogged(const std::string& command, const std::filesystem::path& logFile, std::string* why = nullptr);

/// Runs `command` with its standard error appended to `logFile`, and its standard output
/// appended there too, line by line, each line also handed to `onLine` as it arrives
/// (a simulator's progress). True on exit status 0; `*why` as for runLogged.
bool runStreaming(const std::string& command, const std::filesystem::path& logFile,
                  const std::function<void(const std::string&)>& onLine, std::string* why = nullptr);

/// True when `command` (its output discarded) exits 0.
bool commandSucceeds(const std::string& command);

/// The whole content of a file ("" when it cannot be read).
std::string slurp(const std::filesystem::path& p);

}  // namespace skeleshare::vhdl::detail
