// SPDX-License-Identifier: GPL-3.0-or-later
#include "fp8quantization.h"

namespace rapid::model {

namespace {
constexpr double kFp8Bytes = 1;
/// MXFP8: one E8M0 scale byte per block of 32 elements (OCP Microscaling Formats (MX) Specification v1.0).
constexpr double kMxBlock = 32;
/// DeepSeek-V3's fine-grained FP8: an fp32 scale per 1 x 128 tile of activations, per 128 x 128 block of weights.
constexpr double kFp32ScaleBytes = 4;
constexpr double kTile = 128;
} // namespace

Fp8CastBytes fp8CastBytes(const GemmDims& gemm, config::Fp8Scaling scaling, double highBytes, bool weightsInFp8,
    bool training, bool torchao, bool inputShared)
{
    const double batch = static_cast<double>(gemm.batch);
    const double x = inputShared ? 0.0 : static_cast<double>(gemm.m) * static_cast<double>(gemm.k) * batch;
    const double w = static_cast<double>(gemm.k) * static_cast<double>(gemm.n) * batch;
    const double dy = static_cast<double>(gemm.m) * static_cast<double>(gemm.n) * batch;
    const bool dynamic = scaling == config::Fp8Scaling::Tensorwise || scaling == config::Fp8Scaling::Rowwise;
    const bool perAxis = scaling == config::Fp8Scaling::Rowwise || scaling == config::Fp8Scaling::Blockwise;
    const double scaleBytes = scaling == config::Fp8Scaling::Blockwise ? 1.0 / kMxBlock : 0.0;
    const double bytesPerElement = (dynamic ? 2 : 1) * highBytes + kFp8Bytes + scaleBytes;

    Fp8CastBytes bytes;
    if (scaling == config::Fp8Scaling::Block128) {
        const double tileBytes = highBytes + kFp8Bytes + kFp32ScaleBytes / kTile;
        const double blockBytes = highBytes + kFp8Bytes + kFp32ScaleBytes / (kTile * kTile);
        bytes.forwardElements = x + (weightsInFp8 ? 0.0 : w);
        bytes.forward = x * tileBytes + (weightsInFp8 ? 0.0 : w * blockBytes);
        bytes.backwardElements = training ? 2 * dy + x : 0.0;
        bytes.backward = bytes.backwardElements * tileBytes;
        return bytes;
    }
    const double forwardElements = x + (weightsInFp8 ? 0.0 : w);
    const double backwardElements = training ? (perAxis ? 2 * dy + w + x : dy) : 0.0;
    bytes.forward = forwardElements * bytesPerElement;
    bytes.backward = backwardElements * bytesPerElement;
    bytes.forwardElements = forwardElements;
    bytes.backwardElements = backwardElements;
    if (torchao && training && scaling == config::Fp8Scaling::Tensorwise) {
        bytes.backward += (dy + w + x) * 2 * kFp8Bytes;
        bytes.backwardLayoutCopies = inputShared ? 2 : 3;
    }
    if (torchao && training && scaling == config::Fp8Scaling::Rowwise) {
        // dx (m x k, whether or not x's cast is shared) and dW (k x n), each read and written once more to rescale.
        const double dx = static_cast<double>(gemm.m) * static_cast<double>(gemm.k) * batch;
        bytes.backward += (dx + w) * 2 * highBytes;
        bytes.backwardRescales = 2;
    }
    return bytes;
}

double fp8ActivationBytes(config::Fp8Scaling scaling)
{
    switch (scaling) {
    case config::Fp8Scaling::Blockwise:
        return kFp8Bytes + 1.0 / kMxBlock;
    case config::Fp8Scaling::Block128:
        return kFp8Bytes + kFp32ScaleBytes / kTile;
    default:
        return kFp8Bytes;
    }
}

double nvfp4QuantizeBytes(const GemmDims& gemm, double highBytes)
{
    const double x = static_cast<double>(gemm.m) * static_cast<double>(gemm.k) * static_cast<double>(gemm.batch);
    return x * (highBytes + config::bytesPerElement(config::Precision::Nvfp4));
}

} // namespace rapid::model
