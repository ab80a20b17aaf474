// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionkernel.h"

namespace rapid::config {

AttentionKernel resolvedAttentionKernel(const RunSpec& run, const GpuSpec& gpu)
{
    if (run.attentionKernel != AttentionKernel::Auto) {
        return run.attentionKernel;
    }
    const GpuArchitecture arch = gpu.architecture;
    switch (run.framework) {
    case Framework::Megatron:
        return arch == GpuArchitecture::Hopper || arch == GpuArchitecture::Blackwell ? AttentionKernel::Cudnn
                                                                                     : AttentionKernel::Fa2;
    case Framework::PytorchFsdp:
        if (run.transformerEngine) { // TE's DotProductAttention picks FusedAttention (cuDNN) on Hopper+, as Megatron
            return arch == GpuArchitecture::Hopper || arch == GpuArchitecture::Blackwell ? AttentionKernel::Cudnn
                                                                                         : AttentionKernel::Fa2;
        }
        return arch == GpuArchitecture::Blackwell ? AttentionKernel::Cudnn : AttentionKernel::Fa2;
    case Framework::Vllm:
        return arch == GpuArchitecture::Hopper   ? AttentionKernel::Fa3
            : arch == GpuArchitecture::Blackwell ? AttentionKernel::Cudnn
                                                 : AttentionKernel::Fa2;
    case Framework::Nanotron:
    case Framework::DeepSpeed:
        return AttentionKernel::Fa2;
    }
    return AttentionKernel::Fa2;
}

std::string attentionKernelProblem(AttentionKernel kernel, const GpuSpec& gpu)
{
    if (kernel == AttentionKernel::Fa3 && gpu.architecture != GpuArchitecture::Hopper) {
        return std::string("FlashAttention-3 runs on Hopper GPUs only (wgmma and TMA); the GPU ") + gpu.name + " is "
            + (gpu.architecture == GpuArchitecture::Other ? std::string("of unstated architecture (gpu.architecture)")
                                                          : std::string(toString(gpu.architecture)))
            + "; expected fa2, cudnn or auto";
    }
    return "";
}

} // namespace rapid::config
