#pragma once
// The paper's canonical functions (Fig. 10, Fig. 11, Section V-B) as term builders.
// The DSL translation builds its skeletons with them, so a translated program and a
// rule's right-hand side produce the very same (hash-consed) lambdas.

#include "skeleshare/ir/context.h"

namespace skeleshare::ir {

/// ParallelDot's canonical lambda: \a: M x N x A. \b: M x N x B. ParallelDot[P](a, b).
const Term* dotF(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b, int64_t p);

/// cMvF[M, N] = \mat: M x N x A. \vec: N x B. Mv(mat, vec, dotF with P = M).
const Term* cMvF(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b);

/// mvF[M, N, P]: cMvF with dotF's P rows a step, so ceil(M / P) steps a call.
const Term* mvF(Context& ctx, int64_t m, int64_t n, const Type* a, const Type* b, int64_t p);

/// pMvF[P, C, M, N]: like cMvF, but with ParallelPartialDot[P, C] (Fig. 11).
const Term* pMvF(Context& ctx, int64_t m, int64_t n, int64_t c, const Type* a, const Type* b);

/// cMmF[W, H, K] = \a: H x K x A. \b: W x K x B. Mm(a, b, cMvF[W, K]).
const Term* cMmF(Context& ctx, int64_t w, int64_t h, int64_t k, const Type* a, const Type* b);

/// cConvF[H, W, ICH, OCH, KS] = \in. \wgt. Conv(in, wgt, cMvF[OCH, KS.KS.ICH]).
const Term* cConvF(Context& ctx, int64_t h, int64_t w, int64_t ich, int64_t och, int64_t ks,
                   const Type* a, const Type* b);

/// cConv1D_WF[H, W, K] = \img: H x W x A. \wgt: K x B. Conv1D_W(img, wgt, cMvF[W-K+1, K]).
const Term* cConv1DWF(Context& ctx, int64_t h, int64_t w, int64_t k, const Type* a, const Type* b);

}  // namespace skeleshare::ir
