// The runs of an address generator as ss_agen forms them: a line-for-line model of the
// template's elaboration-time tables (ss_pkg: run_levels, run_delta, run_digit_delta,
// aligned_group, run_addr_table) and of its per-cycle decision (ss_agen), and of how
// ss_read and ss_write take runs and lines. tests/vhdl check the counts against the
// templates in simulation.

#include "skeleshare/lower/runs.h"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <mutex>
#include <stdexcept>

namespace skeleshare::lower {

namespace {

constexpr int kModes = 3;

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

std::vector<int64_t> padded(std::vector<int64_t> v, size_t n) {
  if (v.size() > n) throw std::logic_error("address generator: an affine form is longer than its variables");
  v.resize(n, 0);
  return v;
}

/// ss_pkg's functions of the generics and ss_agen's tables.
struct Tables {
  const AgenParams& p;
  int64_t levels = 0, maxrun = 1, r = 2;
  std::array<int64_t, kModes> ls{}, top{};
  std::vector<bool> aligned1, aligned2;
  bool mode1 = false, mode2 = false;
  std::vector<int64_t> tIn, tM, tD, tA;
  std::vector<int64_t> mMin, mMax, dMin, dMax;  // per (mode, mask) and (mode, digit): table_min/max
  std::vector<bool> dMoves;                     // per (mode, digit): its table is not all 0
  std::array<std::vector<int64_t>, kModes> moving;  // per mode: the digits whose table moves
  // Tail masks (ss_agen's TAIL_DIGIT): mask m is exactly "the top digit of group tGroup[m] below
  // its hi", and every mask fills alike, so an element whose group value is at least
  // tThreshold[m] is masked whatever the digits below do. tT: the group value's change
  // (exact over wraps: it is affine in the counters); tMin/tMax its table_min/max.
  std::vector<bool> tail;
  std::vector<int64_t> tGroup, tThreshold, tT, tMin, tMax;

  int64_t gcoef(int64_t g, int64_t j) const { return p.gCoef[static_cast<size_t>(g * p.nc + j)]; }

  bool counterMovesOk(int64_t j) const {
    for (int64_t d = 0; d < p.nd; ++d) {
      if (p.dDiv[d] != 1 && gcoef(p.dGroup[d], j) != 0) {
        bool held = false;
        for (int64_t l = 0; l < p.nd; ++l)
          if (p.dGroup[l] == p.dGroup[d] && p.dDiv[l] == 1 && p.dMod[l] != 0 && p.dDiv[d] % p.dMod[l] == 0) held = true;
        if (!held) return false;
      }
    }
    return true;
  }

  int64_t runLevels(int64_t perCycle) const {
    if (!counterMovesOk(p.nc - 1)) return 0;
    int64_t l = 1, inner = p.extents[static_cast<size_t>(p.nc - 1)];
    while (l < p.nc && inner < perCycle) {
      if (!counterMovesOk(p.nc - l - 1)) break;
      inner *= p.extents[static_cast<size_t>(p.nc - l - 1)];
      ++l;
    }
    return l;
  }

  int64_t runDelta(int64_t e, int64_t j, int64_t l) const {
    if (j + l < p.nc) return 0;
    int64_t inner = 1;
    for (int64_t k = j + 1; k < p.nc; ++k) inner *= p.extents[static_cast<size_t>(k)];
    if (j + l == p.nc) return e / inner;
    return (e / inner) % p.extents[static_cast<size_t>(j)];
  }

  bool alignedGroup(int64_t g, int64_t l) const {
    int64_t radix = 0;
    bool moved = false;
    for (int64_t d = 0; d < p.nd; ++d)
      if (p.dGroup[d] == g && p.dDiv[d] == 1) radix = p.dMod[d];
    for (int64_t j = p.nc - l; j < p.nc; ++j) {
      if (gcoef(g, j) < 0) return false;
      moved = moved || gcoef(g, j) > 0;
    }
    return radix != 0 && moved;
  }

  int64_t runDigitDelta(int64_t md, int64_t d, int64_t e) const {
    const int64_t l = ls[static_cast<size_t>(md)];
    const int64_t g = p.dGroup[d];
    int64_t v = 0, radix = 0;
    for (int64_t j = p.nc - l; j < p.nc; ++j) v += runDelta(e, j, l) * gcoef(g, j);
    for (int64_t k = 0; k < p.nd; ++k)
      if (p.dGroup[k] == g && p.dDiv[k] == 1) radix = p.dMod[k];
    if (md >= 1 && alignedGroup(g, l)) {
      if (p.dDiv[d] == 1) return floorMod(v, radix);  // VHDL mod
      if (p.dDiv[d] == radix) return v / radix;        // VHDL / truncates
      return 0;
    }
    return p.dDiv[d] == 1 ? v : 0;
  }

  Tables(const AgenParams& params, int64_t perCycle) : p(params) {
    levels = runLevels(perCycle);
    maxrun = levels > 0 ? perCycle : 1;
    r = maxrun + 1;
    ls = {1, 1, std::max<int64_t>(levels, 1)};
    top = {p.nc - 1, p.nc - 1, p.nc - ls[2]};
    aligned1.assign(static_cast<size_t>(p.nd), false);
    aligned2.assign(static_cast<size_t>(p.nd), false);
    if (levels > 0)
      for (int64_t d = 0; d < p.nd; ++d) {
        aligned1[d] = p.dDiv[d] == 1 && alignedGroup(p.dGroup[d], 1);
        aligned2[d] = p.dDiv[d] == 1 && alignedGroup(p.dGroup[d], ls[2]);
      }
    mode1 = std::find(aligned1.begin(), aligned1.end(), true) != aligned1.end();
    mode2 = levels > 1;
    const int64_t nmv = p.nm + 1;
    tIn.assign(static_cast<size_t>(kModes * r * p.nc), 0);
    tM.assign(static_cast<size_t>(kModes * nmv * r), 0);
    tD.assign(static_cast<size_t>(kModes * p.nd * r), 0);
    tA.assign(static_cast<size_t>(kModes * r), 0);
    for (int64_t md = 0; md < kModes; ++md)
      for (int64_t e = 0; e <= maxrun; ++e) {
        for (int64_t j = 0; j < p.nc; ++j) tIn[static_cast<size_t>((md * r + e) * p.nc + j)] = runDelta(e, j, ls[md]);
        std::vector<int64_t> dd(static_cast<size_t>(p.nd));
        for (int64_t d = 0; d < p.nd; ++d) {
          dd[d] = runDigitDelta(md, d, e);
          tD[static_cast<size_t>((md * p.nd + d) * r + e)] = dd[d];
        }
        for (int64_t m = 0; m < p.nm; ++m) {
          int64_t v = 0;
          for (int64_t d = 0; d < p.nd; ++d) v += p.mCoef[static_cast<size_t>(m * p.nd + d)] * dd[d];
          tM[static_cast<size_t>((md * nmv + m) * r + e)] = v;
        }
        int64_t a = 0;
        for (int64_t c = 0; c < p.ns; ++c) {
          int64_t v = 0;
          for (int64_t d = 0; d < p.nd; ++d) v += p.cCoef[static_cast<size_t>(c * p.nd + d)] * dd[d];
          a = a * p.space[c] + v;
        }
        tA[static_cast<size_t>(md * r + e)] = a;
      }
    // table_min / table_max over elements 0 .. maxrun - 1 (and 0)
    auto range = [&](const std::vector<int64_t>& t, int64_t first, int64_t& lo, int64_t& hi) {
      lo = 0;
      hi = 0;
      for (int64_t i = first; i < first + maxrun; ++i) {
        lo = std::min(lo, t[static_cast<size_t>(i)]);
        hi = std::max(hi, t[static_cast<size_t>(i)]);
      }
    };
    mMin.assign(static_cast<size_t>(kModes * nmv), 0);
    mMax = mMin;
    dMin.assign(static_cast<size_t>(kModes * p.nd), 0);
    dMax = dMin;
    dMoves.assign(static_cast<size_t>(kModes * p.nd), false);
    for (int64_t md = 0; md < kModes; ++md) {
      for (int64_t m = 0; m < p.nm; ++m) range(tM, (md * nmv + m) * r, mMin[md * nmv + m], mMax[md * nmv + m]);
      for (int64_t d = 0; d < p.nd; ++d) {
        size_t k = static_cast<size_t>(md * p.nd + d);
        range(tD, (md * p.nd + d) * r, dMin[k], dMax[k]);
        dMoves[k] = p.dMod[d] != 0 && (dMin[k] != 0 || dMax[k] != 0);
        if (dMoves[k]) moving[static_cast<size_t>(md)].push_back(d);
      }
    }
    tail.assign(static_cast<size_t>(p.nm), false);
    tGroup.assign(static_cast<size_t>(p.nm), 0);
    tThreshold.assign(static_cast<size_t>(p.nm), 0);
    tT.assign(static_cast<size_t>(kModes * nmv * r), 0);
    tMin.assign(static_cast<size_t>(kModes * nmv), 0);
    tMax = tMin;
    bool oneFill = true;
    for (int64_t m = 1; m < p.nm; ++m) oneFill = oneFill && p.mFill[m] == p.mFill[0];
    for (int64_t m = 0; m < p.nm && oneFill; ++m) {
      int64_t digit = -1, terms = 0;
      for (int64_t d = 0; d < p.nd; ++d) {
        const int64_t c = p.mCoef[static_cast<size_t>(m * p.nd + d)];
        if (c == 0) continue;
        ++terms;
        if (c == 1) digit = d;
      }
      if (terms != 1 || digit < 0 || p.dMod[digit] != 0 || p.mOffset[m] != 0 || p.mLo[m] > 0 || p.mHi[m] < 1)
        continue;
      tail[m] = true;
      tGroup[m] = p.dGroup[digit];
      tThreshold[m] = p.mHi[m] * p.dDiv[digit];
      for (int64_t md = 0; md < kModes; ++md) {
        const int64_t l = ls[static_cast<size_t>(md)];
        for (int64_t e = 0; e <= maxrun; ++e) {
          int64_t v = 0;
          for (int64_t j = p.nc - l; j < p.nc; ++j) v += runDelta(e, j, l) * gcoef(tGroup[m], j);
          tT[static_cast<size_t>((md * nmv + m) * r + e)] = v;
        }
        range(tT, (md * nmv + m) * r, tMin[md * nmv + m], tMax[md * nmv + m]);
      }
    }
  }
};

/// ss_pkg.run_window and ss_agen's `inside`: t in [lo_c, hi_c).
struct Window {
  int64_t lo = 0, hi = 0;
  Window() = default;
  Window(int64_t v0, int64_t lo0, int64_t hi0, int64_t omin, int64_t omax) {
    lo = std::max(omin - 1, std::min(omax + 1, lo0 - v0)) - (omin - 1);
    hi = std::max(omin - 1, std::min(omax + 1, hi0 - v0)) - (omin - 1);
  }
  bool inside(int64_t t) const { return lo <= t && t < hi; }
};

/// ss_agen: the counters and this cycle's run.
class Agen {
 public:
  Agen(const AgenParams& p, int64_t perCycle, int64_t elemBytes) : p_(p), t_(p, perCycle), eb_(elemBytes) {
    ctr_.assign(static_cast<size_t>(p.nc), 0);
    digit_.assign(static_cast<size_t>(p.nd), 0);
    value_.assign(static_cast<size_t>(p.ng), 0);
    mval_.assign(static_cast<size_t>(p.nm + 1), 0);
    masks_.resize(static_cast<size_t>(p.nm));
    tails_.resize(static_cast<size_t>(p.nm));
    digits_.resize(static_cast<size_t>(p.nd));
    run_.accessed.assign(static_cast<size_t>(t_.maxrun), false);
    run_.high.assign(static_cast<size_t>(t_.maxrun), false);
  }
  bool finished() const { return fin_; }
  const Tables& tables() const { return t_; }
  /// The mixed-radix value of counters 0 .. prefix - 1.
  int64_t outerIndex(int64_t prefix) const {
    int64_t v = 0;
    for (int64_t k = 0; k < prefix; ++k) v = v * p_.extents[static_cast<size_t>(k)] + ctr_[static_cast<size_t>(k)];
    return v;
  }
  /// Start over at outer index `index` of counters 0 .. prefix - 1, the others at 0.
  void jumpTo(int64_t index, int64_t prefix) {
    std::fill(ctr_.begin(), ctr_.end(), 0);
    for (int64_t k = prefix - 1; k >= 0; --k) {
      const int64_t e = p_.extents[static_cast<size_t>(k)];
      ctr_[static_cast<size_t>(k)] = index % e;
      index /= e;
    }
    fin_ = false;
  }

  struct Run {
    bool masked = false;
    int64_t line = 0, off = 0, run = 1, run2 = 1, runm = 1;  // off: the first element's byte in its line
    std::vector<bool> accessed, high;  // per element: not masked; lies in the line after the first's
  };

  /// This cycle's run (valid until the next call; the counting loops call it once per
  /// run of a whole tensor, so it allocates nothing).
  const Run& current() {
    const int64_t nmv = p_.nm + 1, r = t_.r;
    std::vector<int64_t>& digit = digit_;
    std::vector<int64_t>& value = value_;
    for (int64_t g = 0; g < p_.ng; ++g) {
      int64_t v = p_.gOffset[g];
      for (int64_t k = 0; k < p_.nc; ++k) v += p_.gCoef[static_cast<size_t>(g * p_.nc + k)] * ctr_[k];
      value[g] = v;
    }
    for (int64_t d = 0; d < p_.nd; ++d) {
      int64_t v = value[static_cast<size_t>(p_.dGroup[d])];
      if (p_.dDiv[d] != 1) v = floorDiv(v, p_.dDiv[d]);
      if (p_.dMod[d] != 0) v = floorMod(v, p_.dMod[d]);
      digit[d] = v;
    }
    std::vector<int64_t>& mval = mval_;
    for (int64_t m = 0; m < p_.nm; ++m) {
      int64_t v = p_.mOffset[m];
      for (int64_t d = 0; d < p_.nd; ++d) v += p_.mCoef[static_cast<size_t>(m * p_.nd + d)] * digit[d];
      mval[m] = v;
    }
    int64_t raw = 0;
    for (int64_t c = 0; c < p_.ns; ++c) {
      int64_t v = p_.cOffset[c];
      for (int64_t d = 0; d < p_.nd; ++d) v += p_.cCoef[static_cast<size_t>(c * p_.nd + d)] * digit[d];
      raw = raw * p_.space[c] + v;
    }
    const int64_t byte = raw * eb_;  // the buffer starts on a line
    const int64_t off = floorMod(byte, kLineBytes);
    Run& out = run_;
    out.masked = false;
    out.run = out.run2 = out.runm = 1;
    out.line = floorDiv(byte, kLineBytes);
    out.off = off;
    int64_t md = 0;
    if (t_.mode1) {
      bool zero = true;
      for (int64_t d = 0; d < p_.nd; ++d) zero = zero && !(t_.aligned1[d] && digit[d] != 0);
      if (zero) md = 1;
    }
    if (t_.mode2) {
      bool zero = true;
      for (int64_t j = t_.top[2] + 1; j < p_.nc; ++j) zero = zero && ctr_[j] == 0;
      for (int64_t d = 0; d < p_.nd; ++d) zero = zero && !(t_.aligned2[d] && digit[d] != 0);
      if (zero) md = 2;
    }
    mode_ = md;
    std::vector<Window>& masks = masks_;
    std::vector<Window>& digits = digits_;
    std::vector<Window>& tails = tails_;
    for (int64_t m = 0; m < p_.nm; ++m) {
      size_t k = static_cast<size_t>(md * nmv + m);
      masks[static_cast<size_t>(m)] = Window(mval[m], p_.mLo[m], p_.mHi[m], t_.mMin[k], t_.mMax[k]);
      if (t_.tail[m]) {
        const int64_t v = value[static_cast<size_t>(t_.tGroup[m])];
        tails[static_cast<size_t>(m)] = Window(v, v + t_.tMin[k] - 1, t_.tThreshold[m], t_.tMin[k], t_.tMax[k]);
      }
    }
    for (int64_t d = 0; d < p_.nd; ++d) {
      size_t k = static_cast<size_t>(md * p_.nd + d);
      if (t_.dMoves[k]) digits[static_cast<size_t>(d)] = Window(digit[d], 0, p_.dMod[d], t_.dMin[k], t_.dMax[k]);
    }
    const int64_t topc = t_.top[static_cast<size_t>(md)];
    std::fill(out.accessed.begin(), out.accessed.end(), false);
    std::fill(out.high.begin(), out.high.end(), false);
    bool stop = false, stop1 = false, stop2 = false, stopm = false, wrapped = false;
    for (int64_t e = 0; e < t_.maxrun; ++e) {
      bool me = false, te = false;
      for (int64_t m = 0; m < p_.nm; ++m) {
        size_t k = static_cast<size_t>(md * nmv + m);
        int64_t t = t_.tM[static_cast<size_t>((md * nmv + m) * r + e)] - t_.mMin[k] + 1;
        if (!masks[static_cast<size_t>(m)].inside(t)) me = true;
        if (t_.tail[m]) {
          t = t_.tT[static_cast<size_t>((md * nmv + m) * r + e)] - t_.tMin[k] + 1;
          if (!tails[static_cast<size_t>(m)].inside(t)) te = true;
        }
      }
      me = me || te;
      out.accessed[static_cast<size_t>(e)] = !me;
      if (e == 0) {
        out.masked = me;
        continue;
      }
      if (!(ctr_[topc] < p_.extents[static_cast<size_t>(topc)] - t_.tIn[static_cast<size_t>((md * r + e) * p_.nc + topc)]))
        stop = true;
      for (int64_t d : t_.moving[static_cast<size_t>(md)]) {  // the others never stop a run
        size_t k = static_cast<size_t>(md * p_.nd + d);
        int64_t t = t_.tD[static_cast<size_t>((md * p_.nd + d) * r + e)] - t_.dMin[k] + 1;
        if (!digits[static_cast<size_t>(d)].inside(t)) wrapped = true;
      }
      // Past a digit's wrap only a tail-masked element may follow (its fill needs no digit)
      if (wrapped && !te) stop = true;
      const int64_t t = t_.tA[static_cast<size_t>(md * r + e)] * eb_;
      stop1 = stop1 || stop;
      stop2 = stop2 || stop;
      stopm = stopm || stop || !me;
      if (!me) {
        stop1 = stop1 || off < -t || off >= kLineBytes - eb_ - t + 1;
        stop2 = stop2 || off < -t || off >= 2 * kLineBytes - eb_ - t + 1;
        out.high[static_cast<size_t>(e)] = off + t >= kLineBytes;
      }
      if (!stop1) out.run = e + 1;
      if (!stop2) out.run2 = e + 1;
      if (!stopm) out.runm = e + 1;
      if (stop1 && stop2 && stopm) break;
    }
    return out;
  }

  /// The consumer takes n elements of the current run.
  void take(int64_t n) {
    const int64_t r = t_.r;
    const int64_t topc = t_.top[static_cast<size_t>(mode_)];
    int64_t step = t_.tIn[static_cast<size_t>((mode_ * r + n) * p_.nc + topc)];
    for (int64_t j = topc + 1; j < p_.nc; ++j) ctr_[j] = t_.tIn[static_cast<size_t>((mode_ * r + n) * p_.nc + j)];
    int64_t v = ctr_[topc] + step;
    if (v >= p_.extents[static_cast<size_t>(topc)]) {
      ctr_[topc] = 0;
      bool carry = true;
      for (int64_t k = topc - 1; k >= 0 && carry; --k) {
        if (ctr_[k] < p_.extents[static_cast<size_t>(k)] - 1) {
          ++ctr_[k];
          carry = false;
        } else {
          ctr_[k] = 0;
        }
      }
      fin_ = carry;
    } else {
      ctr_[topc] = v;
    }
  }

 private:
  const AgenParams& p_;
  Tables t_;
  int64_t eb_;
  std::vector<int64_t> ctr_, digit_, value_, mval_;  // scratch of current(), sized once
  std::vector<Window> masks_, digits_, tails_;
  Run run_;
  int64_t mode_ = 0;
  bool fin_ = false;
};

/// The counters as ss_agen walks them: adjacent counters that every group reads as one
/// index, `ext(j+1) * c(j) + c(j+1)` (a partial dot's chunk and lane counters over one
/// flattened window, `64*s + 4*chunk + lane`), become one counter of the product's extent.
/// It takes the same values in the same order, so the elements, their order and the
/// vectors they fill are unchanged; only a run may now cross what was the inner counter's
/// wrap (TinyYolo's 3x3x3 window under a 16 x 4 lane split: 3 runs, not 7).
struct WalkedCounters {
  std::vector<int64_t> extents;
  std::vector<std::vector<int64_t>> coef;  // per group, per walked counter
};

WalkedCounters walkedCounters(const AddrGen& g) {
  WalkedCounters w;
  const size_t nc = std::max<size_t>(1, g.counters.size());
  for (const auto& c : g.counters) w.extents.push_back(c.extent);
  if (w.extents.empty()) w.extents.push_back(1);
  for (const auto& gr : g.groups) w.coef.push_back(padded(gr.value.coef, nc));
  for (size_t j = w.extents.size() - 1; j-- > 0;) {
    const int64_t inner = w.extents[j + 1];
    const bool oneIndex = std::all_of(w.coef.begin(), w.coef.end(),
                                      [&](const std::vector<int64_t>& c) { return c[j] == inner * c[j + 1]; });
    if (!oneIndex) continue;
    w.extents[j + 1] *= w.extents[j];
    w.extents.erase(w.extents.begin() + static_cast<std::ptrdiff_t>(j));
    for (auto& c : w.coef) c.erase(c.begin() + static_cast<std::ptrdiff_t>(j));
  }
  return w;
}

}  // namespace

AgenParams agenParams(const AddrGen& g) {
  AgenParams p;
  WalkedCounters walked = walkedCounters(g);
  const size_t nc = walked.extents.size();
  p.extents = std::move(walked.extents);
  size_t digit = 0;          // the digit's index in the AddrGen (coords and masks)
  std::vector<size_t> keep;  // the AddrGen's digits that are generics, in order
  for (size_t gi = 0; gi < g.groups.size(); ++gi) {
    const auto& gr = g.groups[gi];
    p.gOffset.push_back(gr.value.offset);
    const std::vector<int64_t>& coef = walked.coef[gi];
    p.gCoef.insert(p.gCoef.end(), coef.begin(), coef.end());
    int64_t inner = 1;
    for (size_t i = 1; i < gr.radices.size(); ++i) inner *= gr.radices[i];
    for (size_t i = 0; i < gr.radices.size(); ++i, ++digit) {
      // A digit of radix 1 below the top (a window's single channel, 3x3x1) is always 0:
      // it is left out (its coordinate and mask terms vanish). Kept, it would be a second
      // digit with divisor 1 in its group beside the real lowest digit, and the runs
      // (ss_pkg: run_digit_delta, aligned_group; ss_agen) take the last divisor-1 digit's
      // radix as the group's: radix 1 made every element of a run the run's first one.
      if (i > 0 && gr.radices[i] == 1) {
        if (i + 1 < gr.radices.size()) inner /= gr.radices[i + 1];
        continue;
      }
      keep.push_back(digit);
      p.dGroup.push_back(static_cast<int64_t>(gi));
      p.dDiv.push_back(inner);
      p.dMod.push_back(i == 0 ? 0 : gr.radices[i]);
      if (i + 1 < gr.radices.size()) inner /= gr.radices[i + 1];
    }
  }
  if (p.gOffset.empty()) {
    p.gOffset.push_back(0);
    p.gCoef.assign(nc, 0);
  }
  if (p.dGroup.empty()) {
    p.dGroup.push_back(0);
    p.dDiv.push_back(1);
    p.dMod.push_back(0);
  }
  const size_t nd = p.dGroup.size();
  for (size_t s = 0; s < g.coords.size(); ++s) {
    p.space.push_back(g.space[s]);
    p.cOffset.push_back(g.coords[s].offset);
    auto coef = padded(g.coords[s].coef, digit);
    for (size_t k : keep) p.cCoef.push_back(coef[k]);
    if (keep.empty()) p.cCoef.push_back(0);  // the spare digit
  }
  if (p.space.empty()) {
    p.space.push_back(1);
    p.cOffset.push_back(0);
    p.cCoef.assign(nd, 0);
  }
  for (const auto& m : g.masks) {
    p.mOffset.push_back(m.expr.offset);
    auto coef = padded(m.expr.coef, digit);
    for (size_t k : keep) p.mCoef.push_back(coef[k]);
    if (keep.empty()) p.mCoef.push_back(0);
    p.mLo.push_back(m.lo);
    p.mHi.push_back(m.hi);
    p.mFill.push_back(m.fill);
  }
  p.nm = static_cast<int64_t>(g.masks.size());
  if (p.nm == 0) {
    p.mOffset = p.mLo = p.mHi = p.mFill = {0};
    p.mCoef.assign(nd, 0);
  }
  p.nc = static_cast<int64_t>(p.extents.size());
  p.ng = static_cast<int64_t>(p.gOffset.size());
  p.nd = static_cast<int64_t>(nd);
  p.ns = static_cast<int64_t>(p.space.size());
  return p;
}

int64_t writePerCycle(int64_t lanes, int elementBytes) { return std::min<int64_t>(lanes, kLineBytes / elementBytes); }

int64_t readPerCycle(int64_t lanes, int elementBytes) {
  const int64_t line = kLineBytes / elementBytes;
  return lanes <= line + line / kReadHaloDivisor ? lanes : line;
}

namespace {

/// A walk's runs and lines; a read's lines for several kept-line counts at once.
struct WalkCount {
  int64_t runs = 0;
  std::vector<int64_t> lines;
  int64_t walked = 0;
};

/// The lines ss_read keeps: the last `keep` distinct lines its runs used, oldest first.
class KeptLines {
 public:
  explicit KeptLines(int64_t keep) : keep_(static_cast<size_t>(keep)) {}
  bool has(int64_t l) const { return std::find(kept_.begin(), kept_.end(), l) != kept_.end(); }
  void add(int64_t l) {
    kept_.push_back(l);
    if (kept_.size() > keep_) kept_.erase(kept_.begin());
  }

 private:
  size_t keep_;
  std::vector<int64_t> kept_;
};

/// ss_read's runs and lines (see readAccess) for each of `keeps`. A call walks from the
/// agen's state to its end or, with `prefix` > 0, to the end of the current iteration of
/// counters 0 .. prefix - 1; the kept lines and the vector's fill carry over to the next
/// call, as they do in ss_read from one iteration to the next.
struct ReadWalk {
  ReadWalk(int64_t lanes, const std::vector<int64_t>& keeps) : lanes(lanes) {
    for (int64_t k : keeps) sets.emplace_back(k);
  }
  WalkCount operator()(Agen& a, int64_t prefix) {
    WalkCount c;
    c.lines.assign(sets.size(), 0);
    const int64_t start = a.outerIndex(prefix);
    while (!a.finished() && a.outerIndex(prefix) == start) {
      const Agen::Run& run = a.current();
      const int64_t room = lanes - filled;
      const int64_t n = std::min(run.run2, room);
      bool low = false, high = false;  // some accessed element lies in L, in L + 1
      for (int64_t e = 0; e < n; ++e)
        if (run.accessed[static_cast<size_t>(e)]) (run.high[static_cast<size_t>(e)] ? high : low) = true;
      if (low || high) {
        const int64_t lo = low ? run.line : run.line + 1;
        for (size_t s = 0; s < sets.size(); ++s) {
          // both looked up before the run, as ss_read does; the missed ones requested and
          // kept, L first
          const bool hitLo = sets[s].has(lo), hitHi = low && high && sets[s].has(lo + 1);
          if (!hitLo) ++c.lines[s], sets[s].add(lo);
          if (low && high && !hitHi) ++c.lines[s], sets[s].add(lo + 1);
        }
      }
      ++c.runs;
      a.take(n);
      filled = filled + n == lanes ? 0 : filled + n;
    }
    return c;
  }
  int64_t lanes;
  std::vector<KeptLines> sets;
  int64_t filled = 0;
};

/// ss_write's walk from the agen's state to its end (prefix 0) or to the end of the
/// current iteration of counters 0 .. prefix - 1: `onRun()` for each run it takes and
/// `onLine(l)` for each line it writes, in order (a line is written when a run leaves it,
/// and at the end).
template <class OnRun, class OnLine>
void walkWrite(Agen& a, int64_t prefix, int64_t lanes, OnRun&& onRun, OnLine&& onLine) {
  int64_t left = 0, line = 0;
  bool buffered = false;
  const int64_t start = a.outerIndex(prefix);
  while (!a.finished() && a.outerIndex(prefix) == start) {
    if (left == 0) left = lanes;
    const Agen::Run& run = a.current();
    const int64_t n = std::min(run.masked ? run.runm : run.run, left);
    if (!run.masked) {
      if (buffered && line != run.line) onLine(line);
      line = run.line;
      buffered = true;
    }
    onRun();
    a.take(n);
    left -= n;
  }
  if (buffered) onLine(line);
}

/// ss_write's runs and lines (see writeAccess), as readWalk.
WalkCount writeWalk(Agen& a, int64_t prefix, int64_t lanes) {
  WalkCount c;
  c.lines = {0};
  walkWrite(a, prefix, lanes, [&] { ++c.runs; }, [&](int64_t) { ++c.lines[0]; });
  return c;
}

// Walks of more elements than this are sampled: whole iterations of the outer counters at
// kSamples evenly spread outer indices, scaled to all of them. The extractor's oracle asks
// for every tiling of full-size layers (TinyYolo's 416 x 416 input: 4.7 M elements per
// read), where walking every run took minutes of a compile; the sample is within about a
// percent there, and every design the tests simulate is below the limit, so counted exactly.
// A read's sample starts where the iteration before it leaves its kept lines (that
// iteration is walked first, not counted): a pool's window shares its lines with the
// window before it, which a sample walked from nothing would request again.
constexpr int64_t kExactElements = int64_t{1} << 21;
constexpr int64_t kSamples = 64;

/// `makeWalk()` gives a walker for one count (or one sample); `walker(agen, prefix)` counts
/// from the agen's state to its end (prefix 0) or to the end of the current iteration of
/// counters 0 .. prefix - 1, keeping its state from call to call. With `warm`, a sample
/// first walks the iteration before it, uncounted.
template <class MakeWalk>
WalkCount countAccess(Agen& a, const AgenParams& p, int64_t lanes, bool warm, MakeWalk&& makeWalk) {
  int64_t total = 1;
  for (int64_t e : p.extents) total = std::min(total, int64_t{1} << 40) * e;  // no overflow
  // The outer counters must lie above every counter a run moves (runs never cross their
  // wrap), and an iteration of the inner ones must fill whole vectors.
  const Tables& t = a.tables();
  const int64_t lowestRun = std::min(p.nc - 1, t.top[2]);
  int64_t prefix = 0, outer = 1;
  if (total > kExactElements)
    while (prefix < lowestRun && outer < 4 * kSamples) outer *= p.extents[static_cast<size_t>(prefix++)];
  if (outer < 4 * kSamples || (total / outer) % lanes != 0) {
    WalkCount c = makeWalk()(a, 0);
    c.walked = c.runs;
    return c;
  }
  WalkCount sum;
  const int64_t half = outer / (2 * kSamples);  // half a segment: at least 2
  for (int64_t k = 0; k < kSamples; ++k) {
    // The middle of the k-th of kSamples segments, less k modulo half a segment: evenly
    // spread, and not all at one residue of a short period (a 2 x 2 pool's windows share
    // lines in pairs; samples only at even windows would see none of it).
    const int64_t at = (2 * k + 1) * outer / (2 * kSamples) - k % half;
    auto walk = makeWalk();
    if (warm && at > 0) {
      a.jumpTo(at - 1, prefix);
      sum.walked += walk(a, prefix).runs;  // ends where iteration `at` starts
    } else {
      a.jumpTo(at, prefix);
    }
    WalkCount c = walk(a, prefix);
    sum.runs += c.runs;
    sum.lines.resize(c.lines.size(), 0);
    for (size_t s = 0; s < c.lines.size(); ++s) sum.lines[s] += c.lines[s];
  }
  auto scaled = [&](int64_t v) { return (v * outer + kSamples / 2) / kSamples; };
  WalkCount all{scaled(sum.runs), {}, sum.runs + sum.walked};
  for (int64_t l : sum.lines) all.lines.push_back(scaled(l));
  return all;
}

AccessCount single(const WalkCount& c) { return {c.runs, c.lines.at(0), c.walked}; }

/// A read's runs and its lines for each of `keeps`, in one walk.
WalkCount countRead(const AddrGen& g, int elementBytes, int64_t lanes, const std::vector<int64_t>& keeps) {
  AgenParams p = agenParams(g);
  Agen agen(p, readPerCycle(lanes, elementBytes), elementBytes);
  return countAccess(agen, p, lanes, true, [&] { return ReadWalk(lanes, keeps); });
}

}  // namespace

AccessCount readAccess(const AddrGen& g, int elementBytes, int64_t lanes, int64_t keptLines) {
  if (keptLines < 1) throw std::invalid_argument("readAccess: a read keeps at least one line");
  return single(countRead(g, elementBytes, lanes, {keptLines}));
}

KeptLineCounts readLinesByKeptLines(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxKeptLines) {
  if (maxKeptLines < 1) throw std::invalid_argument("readLinesByKeptLines: a read keeps at least one line");
  std::vector<int64_t> keeps;
  for (int64_t k = 1; k <= maxKeptLines; ++k) keeps.push_back(k);
  WalkCount c = countRead(g, elementBytes, lanes, keeps);
  return {c.runs, std::move(c.lines), c.walked};
}

AccessCount writeAccess(const AddrGen& g, int elementBytes, int64_t lanes) {
  AgenParams p = agenParams(g);
  Agen agen(p, writePerCycle(lanes, elementBytes), elementBytes);
  return single(countAccess(agen, p, lanes, false, [&] {
    return [lanes](Agen& a, int64_t prefix) { return writeWalk(a, prefix, lanes); };
  }));
}

namespace {

/// The low zero bits common to every used offset (at most 6) and every first lane.
RunAlignment alignmentOf(int64_t offsets, int64_t firstLanes) {
  return {std::countr_zero(static_cast<uint64_t>(offsets | kLineBytes)),
          std::countr_zero(static_cast<uint64_t>(firstLanes | (int64_t{1} << kMaxAlignmentBits)))};
}

/// Every run of `agen` to its end, each taking the elements `step(run)` gives, until
/// `stop()`; false, and stopped, when there are more than `maxRuns`.
template <class Step, class Stop = bool (*)()>
bool walkEveryRun(Agen& agen, int64_t maxRuns, Step&& step, Stop&& stop = [] { return false; }) {
  for (int64_t runs = 0; !agen.finished(); ++runs) {
    if (runs == maxRuns) return false;
    const int64_t n = step(agen.current());
    if (stop()) return true;
    agen.take(n);
  }
  return true;
}

}  // namespace

namespace {

/// Every run of a read to its end, as ss_read takes them: visit(run, n, filled) sees each
/// run, the n elements it moves and the lanes of the vector filled before it, and returns
/// false to stop. True when every run was visited (not stopped, not more than maxRuns).
template <class Visit>
bool walkReadRuns(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxRuns, Visit&& visit) {
  AgenParams p = agenParams(g);
  Agen agen(p, readPerCycle(lanes, elementBytes), elementBytes);
  int64_t filled = 0;
  bool stopped = false;
  const bool walked = walkEveryRun(agen, maxRuns, [&](const Agen::Run& run) {
    const int64_t n = std::min(run.run2, lanes - filled);
    if (!visit(run, n, filled)) {
      stopped = true;
      return lanes;  // past the end: the walk stops
    }
    filled = filled + n == lanes ? 0 : filled + n;
    return n;
  }, [&] { return stopped; });
  return walked && !stopped;
}

}  // namespace

RunAlignment readAlignment(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxRuns) {
  // Every used line offset and every fill position, or-ed: their common low zero bits.
  int64_t offsets = 0, fills = 0;
  const bool walked = walkReadRuns(g, elementBytes, lanes, maxRuns, [&](const Agen::Run& run, int64_t n, int64_t filled) {
    // A run whose every element is masked takes its fills, not its line: its offset is unused.
    bool accessed = false;
    for (int64_t e = 0; e < n; ++e) accessed = accessed || run.accessed[static_cast<size_t>(e)];
    if (accessed) offsets |= run.off;
    fills |= filled;  // the rotator places even a run of fills
    return true;
  });
  return walked ? alignmentOf(offsets, fills) : RunAlignment{};
}


RunAlignment writeAlignment(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxRuns) {
  AgenParams p = agenParams(g);
  Agen agen(p, writePerCycle(lanes, elementBytes), elementBytes);
  // As walkWrite: a masked run drops its lanes and touches no line, so only the others count.
  int64_t offsets = 0, firsts = 0, left = 0;
  const bool walked = walkEveryRun(agen, maxRuns, [&](const Agen::Run& run) {
    if (left == 0) left = lanes;
    const int64_t n = std::min(run.masked ? run.runm : run.run, left);
    if (!run.masked) {
      offsets |= run.off;
      firsts |= lanes - left;
    }
    left -= n;
    return n;
  });
  return walked ? alignmentOf(offsets, firsts) : RunAlignment{};
}

bool writeLinesRise(const AddrGen& g, int elementBytes, int64_t lanes) {
  AgenParams p = agenParams(g);
  Agen agen(p, writePerCycle(lanes, elementBytes), elementBytes);
  bool rising = true, any = false;
  int64_t last = 0;
  walkWrite(agen, 0, lanes, [] {}, [&](int64_t line) {
    rising = rising && (!any || line > last);
    any = true;
    last = line;
  });
  return rising;
}

namespace {

/// Everything a walk's answer depends on, flattened: the kind, the width, the lanes and the
/// generics with each list's length before it (so no two different generators collide).
std::vector<int64_t> accessKey(bool write, const AgenParams& p, int elementBytes, int64_t lanes, int64_t keptLines) {
  std::vector<int64_t> key{write ? 1 : 0, elementBytes, lanes, keptLines, p.nc, p.ng, p.nd, p.ns, p.nm};
  for (const std::vector<int64_t>* v : {&p.extents, &p.gOffset, &p.gCoef, &p.dGroup, &p.dDiv, &p.dMod, &p.space, &p.cOffset,
                                        &p.cCoef, &p.mOffset, &p.mCoef, &p.mLo, &p.mHi}) {
    key.push_back(static_cast<int64_t>(v->size()));
    key.insert(key.end(), v->begin(), v->end());
  }
  return key;
}

}  // namespace

const KeptLineCounts& AccessCounter::readLines(const AddrGen& g, int elementBytes, int64_t lanes, int64_t maxKeptLines) {
  auto [it, fresh] = knownLines_.try_emplace(accessKey(false, agenParams(g), elementBytes, lanes, maxKeptLines));
  if (fresh) {
    it->second = readLinesByKeptLines(g, elementBytes, lanes, maxKeptLines);
    ++walks_;
    walkedRuns_ += static_cast<uint64_t>(it->second.walked);
  }
  return it->second;
}

AccessCount AccessCounter::count(bool write, const AddrGen& g, int elementBytes, int64_t lanes, int64_t keptLines) {
  auto [it, fresh] = known_.try_emplace(accessKey(write, agenParams(g), elementBytes, lanes, keptLines));
  if (fresh) {
    it->second = write ? writeAccess(g, elementBytes, lanes) : readAccess(g, elementBytes, lanes, keptLines);
    ++walks_;
    walkedRuns_ += static_cast<uint64_t>(it->second.walked);
  }
  return it->second;
}

bool readRunsStayInBlocks(const AddrGen& g, int elementBytes, int64_t lanes, int64_t block, int64_t maxRuns) {
  if (block < 1 || lanes % block != 0) return false;
  // The replay pool is planned for every schedule and placement the lowering tries (dozens
  // per compile), each plan asking this of the same reads: their answers are kept.
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, bool> known;
  std::vector<int64_t> key = accessKey(false, agenParams(g), elementBytes, lanes, block);
  key.push_back(maxRuns);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  const bool stays = walkReadRuns(g, elementBytes, lanes, maxRuns, [&](const Agen::Run&, int64_t n, int64_t filled) {
    return filled % block + n <= block;
  });
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(std::move(key), stays);
  return stays;
}

}  // namespace skeleshare::lower
