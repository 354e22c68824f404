#pragma once
// Running the external tools of simulation and synthesis (GHDL, Verilator) through the
// shell, with their output kept in a log file.

#include <filesystem>
#include <functional>
#include <string>

namespace skeleshare::vhdl::detail {

/// `s` as one single-quoted shell word.
std::string shellQuote(const std::string& s);

/// Runs `command` with its standard output and error appended to `logFile`; true on
/// exit status 0.
bool runLogged(const std::string& command, const std::filesystem::path& logFile);

/// Runs `command` with its standard error appended to `logFile`, and its standard output
/// appended there too, line by line, each line also handed to `onLine` as it arrives
/// (a simulator's progress). True on exit status 0.
bool runStreaming(const std::string& command, const std::filesystem::path& logFile,
                  const std::function<void(const std::string&)>& onLine);

/// True when `command` (its output discarded) exits 0.
bool commandSucceeds(const std::string& command);

/// The whole content of a file ("" when it cannot be read).
std::string slurp(const std::filesystem::path& p);

}  // namespace skeleshare::vhdl::detail
