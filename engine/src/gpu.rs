//! The GPU context: one device and queue, a cache of compiled pipelines, and readbacks that are
//! awaited (never blocking: blocking on a map would deadlock the browser's event loop).

use crate::error::Error;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::kernel::{DeviceFit, Kernel, Shader};
use crate::tiles::TilePlan;

/// What the lab tells the student about the device it trains on.
#[derive(Clone, Debug, PartialEq)]
pub struct AdapterSummary {
    pub name: String,
    /// "WebGPU", "Vulkan", …
    pub api: String,
}

impl AdapterSummary {
    /// "WebGPU" or "Vulkan · llvmpipe …" (browsers often hide the adapter's name).
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            self.api.clone()
        } else {
            format!("{} · {}", self.api, self.name)
        }
    }
}

/// What a module that uses subgroups starts with. WebGPU asks such a module for
/// `enable subgroups;`, which naga (the native compiler) rejects: on the web it goes first.
const SUBGROUPS_PART: &str = include_str!("../../shaders/subgroups_enable.wgsl");

pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: AdapterSummary,
    pub limits: wgpu::Limits,
    /// How many workgroups the device runs at once where that is few: a GPU emulated on the
    /// processor (SwiftShader, lavapipe) runs one per core. 0 for a real GPU (as many as the work
    /// has). Kernels with much work per workgroup loop over their tiles beyond this count.
    pub parallel_workgroups: u32,
    /// The matrix products' tile shapes on this device: 64 × 64 for every product until
    /// `autotune::autotune` (or the page's cache of its answer for this adapter) sets others.
    pub tiles: std::cell::Cell<TilePlan>,
    /// Whether kernels may use subgroup operations: the device was opened with them, where the
    /// adapter offers subgroups of exactly 4 lanes (setting it false keeps the blocks).
    pub subgroups: std::cell::Cell<bool>,
    /// Whether the device was opened with timestamp queries (where the adapter offers them): a
    /// pass's start and end on the GPU's own clock, which `GpuBackend::profile` times kernels by.
    pub timestamps: bool,
    modules: RefCell<HashMap<&'static str, wgpu::ShaderModule>>,
    /// Whether `specialized` sets override constants: on a real GPU (see there); tests turn it on
    /// for an emulated one to check the specialized pipelines too.
    pub specialize: std::cell::Cell<bool>,
    /// Pipelines by shader file, entry point and override constants (as `name=value` pairs).
    pipelines: RefCell<HashMap<(&'static str, &'static str, String), wgpu::ComputePipeline>>,
    /// Why the device was lost, once it has been (a driver reset, a tab in the background too
    /// long, `destroy()`): everything on it is gone, and a new context must be made.
    lost: Arc<Mutex<Option<String>>>,
    /// Staging buffers kept between readbacks (see `readback`).
    pub(crate) staging: RefCell<Vec<wgpu::Buffer>>,
    /// Readbacks awaited so far: what the benchmark reports per training chunk.
    pub(crate) readbacks: std::cell::Cell<u64>,
}

/// The processor's cores (the browser's `navigator.hardwareConcurrency`), at least 1.
fn processor_cores() -> u32 {
    #[cfg(target_arch = "wasm32")]
    let cores = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .and_then(|n| js_sys::Reflect::get(&n, &"hardwareConcurrency".into()))
        .ok()
        .and_then(|c| c.as_f64())
        .map(|c| c as u32);
    #[cfg(not(target_arch = "wasm32"))]
    let cores = std::thread::available_parallelism().ok().map(|n| n.get() as u32);
    cores.unwrap_or(2).max(1)
}

/// wgpu's WebGPU backend passes only the features it maps, and `subgroups` is not one of them:
/// wrap the adapter's `requestDevice` (once) so that a device is opened with `subgroups` wherever
/// its adapter offers it.
#[cfg(target_arch = "wasm32")]
fn ask_for_subgroups() {
    let wrap = js_sys::Function::new_no_args(
        "const A = globalThis.GPUAdapter;
         if (!A || A.prototype.labAsksForSubgroups) return;
         const open = A.prototype.requestDevice;
         A.prototype.requestDevice = function (desc) {
           if (!this.features.has('subgroups')) return open.call(this, desc);
           const d = Object.assign({}, desc || {});
           d.requiredFeatures = [...(d.requiredFeatures || []), 'subgroups'];
           return open.call(this, d);
         };
         A.prototype.labAsksForSubgroups = true;",
    );
    // A page that forbids evaluating code keeps the device without subgroups.
    let _ = wrap.call0(&js_sys::global());
}

/// Whether the device was opened with subgroups (on the web, through `ask_for_subgroups`).
fn has_subgroups(device: &wgpu::Device, requested: wgpu::Features) -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        let _ = requested;
        device.as_webgpu().is_some_and(|d| d.features().has("subgroups"))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        // The device opened, so it has what was asked for.
        let _ = device;
        !requested.is_empty()
    }
}

impl GpuContext {
    /// Finds an adapter and opens a device. Errors (no WebGPU, no adapter) come back as text a
    /// student can read; the caller then falls back to the CPU path.
    pub async fn new() -> Result<Self, Error> {
        #[cfg(target_arch = "wasm32")]
        if !wgpu::util::is_browser_webgpu_supported().await {
            return Err(Error::NoGpu(
                "this browser does not offer WebGPU (navigator.gpu is missing or gives no adapter)".into(),
            ));
        }
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = if cfg!(target_arch = "wasm32") {
            wgpu::Backends::BROWSER_WEBGPU
        } else {
            wgpu::Backends::VULKAN
        };
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| Error::NoGpu(format!("no GPU adapter: {e}")))?;
        let info = adapter.get_info();
        // Ask for what the adapter offers: larger storage buffers let bigger models and data sets fit.
        let limits = adapter.limits();
        // Where every subgroup is one vector of 4 lanes (SwiftShader), an emulated GPU's products
        // share reads across them (`ops::fused`). lavapipe's 8 lanes compile such kernels for
        // minutes, so it is not asked.
        let four_lanes = info.subgroup_min_size == 4 && info.subgroup_max_size == 4;
        let lanes = if four_lanes {
            adapter.features() & wgpu::Features::SUBGROUP
        } else {
            wgpu::Features::empty()
        };
        let features = lanes | (adapter.features() & wgpu::Features::TIMESTAMP_QUERY);
        #[cfg(target_arch = "wasm32")]
        if four_lanes {
            ask_for_subgroups();
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("lab"),
                required_features: features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| Error::NoGpu(format!("could not open the GPU device: {e}")))?;
        let api = match info.backend {
            wgpu::Backend::BrowserWebGpu => "WebGPU".to_string(),
            b => format!("{b:?}"),
        };
        let name = if info.name.is_empty() {
            info.driver.clone()
        } else {
            info.name.clone()
        };
        let parallel_workgroups = if info.device_type == wgpu::DeviceType::Cpu {
            processor_cores()
        } else {
            0
        };
        let subgroups = four_lanes && has_subgroups(&device, features);
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut l) = flag.lock() {
                *l = Some(format!("{reason:?}: {message}"));
            }
        });
        Ok(Self {
            device,
            queue,
            adapter: AdapterSummary { name, api },
            limits,
            parallel_workgroups,
            specialize: std::cell::Cell::new(parallel_workgroups == 0),
            tiles: std::cell::Cell::default(),
            subgroups: std::cell::Cell::new(subgroups),
            timestamps,
            modules: RefCell::default(),
            pipelines: RefCell::default(),
            lost,
            staging: RefCell::default(),
            readbacks: Default::default(),
        })
    }

    /// What kernels adapt to on this device (`Kernel::fit_device`).
    pub fn fit(&self) -> DeviceFit {
        DeviceFit {
            parallel_workgroups: self.parallel_workgroups,
            tiles: self.tiles.get(),
            subgroups: self.subgroups.get(),
        }
    }

    /// Whether the adapter is a GPU emulated on the processor (SwiftShader, lavapipe).
    pub fn emulated(&self) -> bool {
        self.parallel_workgroups != 0
    }

    /// Why the device was lost, or None while it works.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|l| l.clone())
    }

    /// The compiled pipeline for a shader entry point, built once and reused.
    pub fn pipeline(&self, shader: &Shader) -> wgpu::ComputePipeline {
        self.specialized(shader, &[])
    }

    /// The pipeline a kernel runs on this device: specialized finely on a real GPU, shared
    /// between kernels on an emulated one (`specialize`, `Kernel::constants`).
    pub fn kernel_pipeline(&self, k: &dyn Kernel) -> wgpu::ComputePipeline {
        self.specialized(&k.shader(), &k.constants(self.specialize.get()))
    }

    /// The pipeline for a shader entry point with its pipeline-overridable constants set (a
    /// kernel specialized at creation: the compiler folds the branches they decide), built once
    /// per distinct set of values and reused.
    pub fn specialized(&self, shader: &Shader, constants: &[(&str, f64)]) -> wgpu::ComputePipeline {
        let values: Vec<String> = constants.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let key = (shader.file, shader.entry, values.join(","));
        if let Some(p) = self.pipelines.borrow().get(&key) {
            return p.clone();
        }
        let mut modules = self.modules.borrow_mut();
        let module = modules.entry(shader.file).or_insert_with(|| {
            let source = if cfg!(target_arch = "wasm32") && shader.source.starts_with(SUBGROUPS_PART) {
                format!("enable subgroups;\n{}", shader.source).into()
            } else {
                shader.source.into()
            };
            self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(shader.file),
                source: wgpu::ShaderSource::Wgsl(source),
            })
        });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(shader.entry),
                layout: None,
                module,
                entry_point: Some(shader.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: None,
            });
        self.pipelines.borrow_mut().insert(key, pipeline.clone());
        pipeline
    }

    pub fn cached_pipelines(&self) -> usize {
        self.pipelines.borrow().len()
    }

    /// Copies `len` 32-bit words from the start of `src` and awaits them.
    pub async fn read_words(&self, src: &wgpu::Buffer, len: usize) -> Result<Vec<u32>, Error> {
        let mut enc = self.device.create_command_encoder(&Default::default());
        let staged = self.stage(&mut enc, &[(src, len)]);
        Ok(self.collect(enc, staged).await?.swap_remove(0))
    }
}
