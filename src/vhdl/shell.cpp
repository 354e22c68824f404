#include "shell.h"

#include <sys/wait.h>

#include <fmt/format.h>

#include <csignal>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace skeleshare::vhdl::detail {

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string describeFailure(int waitStatus) {
  int sig = 0;
  if (waitStatus == -1) return "could not be started";
  if (WIFSIGNALED(waitStatus)) sig = WTERMSIG(waitStatus);
  else if (WIFEXITED(waitStatus) && WEXITSTATUS(waitStatus) > 128) sig = WEXITSTATUS(waitStatus) - 128;
  if (sig == SIGKILL) return "killed by signal 9 (SIGKILL: most likely the system's out-of-memory killer)";
  if (sig != 0) return fmt::format("killed by signal {}", sig);
  return fmt::format("exit status {}", WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : waitStatus);
}

bool runLogged(const std::string& command, const std::filesystem::path& logFile, std::string* why) {
  std::string full = "(" + command + ") >>" + shellQuote(logFile.string()) + " 2>&1";
  int status = std::system(full.c_str());
  if (status != 0 && why) *why = describeFailure(status);
  return status == 0;
}

bool runStreaming(const std::string& command, const std::filesystem::path& logFile,
                  const std::function<void(const std::string&)>& onLine, std::string* why) {
  std::string full = "(" + command + ") 2>>" + shellQuote(logFile.string());
  std::FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) {
    if (why) *why = "could not be started";
    return false;
  }
  std::ofstream log(logFile, std::ios::app | std::ios::binary);
  std::string line;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;
    log << line << std::flush;
    line.pop_back();
    if (onLine) onLine(line);
    line.clear();
  }
  if (!line.empty()) {
    log << line << '\n';
    if (onLine) onLine(line);
  }
  int status = pclose(pipe);
  const bool ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok && why) *why = describeFailure(status);
  return ok;
}

bool commandSucceeds(const std::string& command) {
  std::string full = "(" + command + ") >/dev/null 2>&1";
  return std::system(full.c_str()) == 0;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return {};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace skeleshare::vhdl::detail
