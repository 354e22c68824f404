#include "vhdl_text.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "skeleshare/lower/ram_mapping.h"
#include "skeleshare/vhdl/emitter.h"

namespace skeleshare::vhdl::detail {

std::string intLiteral(int64_t v) {
  if (v < std::numeric_limits<int32_t>::min() + 1 || v > std::numeric_limits<int32_t>::max())
    throw EmitError(fmt::format("the constant {} does not fit a 32-bit VHDL integer", v));
  return std::to_string(v);
}

std::string intVector(const std::vector<int64_t>& values) {
  if (values.empty()) throw std::logic_error("intVector: empty list");
  if (values.size() == 1) return "(0 => " + intLiteral(values[0]) + ")";
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + intLiteral(values[i]);
  return s + ")";
}

std::string replayRamInstance(const std::string& name, int64_t width, int64_t words, const std::string& rdata,
                              int64_t beats) {
  const bool inBeats = beats > 1;
  return fmt::format(
      "  {0} : entity work.ss_replay_ram\n    generic map (W => {1}, WORDS => {2}, SLICE_W => {3}{5})\n"
      "    port map (clk => clk, we => {0}_we,{6} waddr => {0}_waddr, wdata => {0}_wdata, re => {0}_re,\n"
      "              raddr => {0}_raddr, rdata => {4});\n",
      name, width, words, lower::replayRamSliceWidth(width / beats, words), rdata,
      inBeats ? fmt::format(", BEATS => {}", beats) : std::string(), inBeats ? fmt::format(" wmask => {}_wmask,", name) : "");
}

std::string readTemplate(const std::string& templateDir, const std::string& name) {
  std::filesystem::path p = std::filesystem::path(templateDir) / name;
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error(fmt::format("cannot read the VHDL template '{}'", p.string()));
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::vector<std::string>& designTemplates() {
  static const std::vector<std::string> kFiles = {
      "ss_pkg.vhd",       "ss_agen.vhd",       "ss_read.vhd",       "ss_write.vhd",       "ss_mem_arbiter.vhd", "ss_line_ram.vhd",
      "ss_fork.vhd",      "ss_const.vhd",      "ss_binop.vhd",      "ss_mul.vhd",         "ss_unop.vhd",
      "ss_reduce_vec.vhd", "ss_dot.vhd", "ss_reduce_stm.vhd", "ss_stm_to_vec.vhd", "ss_vec_to_stm.vhd", "ss_replay_ram.vhd", "ss_repeat.vhd",
      "ss_slide_stm.vhd", "ss_tag_queue.vhd",
  };
  return kFiles;
}

}  // namespace skeleshare::vhdl::detail
