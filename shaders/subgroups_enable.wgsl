// Put first in a module that uses subgroup built-ins (`matmul_fused_quad.wgsl`). On the web,
// `GpuContext` puts WebGPU's `enable subgroups;` before this file; naga, the native compiler,
// takes subgroups without it and rejects it. No uniformity error for quad operations in loops
// whose bounds every lane of a quad shares but the compiler cannot prove uniform.
diagnostic(off, subgroup_uniformity);

