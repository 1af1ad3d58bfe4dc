//! Runs a plan on the GPU: buffers allocated once, one bind group and uniform per dispatch built
//! once, and each step encoded as a single compute pass in a single command buffer.

use crate::error::Error;
use std::rc::Rc;

use super::{Clock, Pass};
use crate::gpu::GpuContext;
use crate::kernel::{strided_groups, BufId, Kernel, StepScalars};
use crate::plan::Plan;

mod limits;
pub use limits::check_limits;

struct Dispatch {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    uniform: wgpu::Buffer,
    groups: [u32; 3],
    /// Index into the plan's kernel list, when the uniform must be rewritten each step.
    per_step: Option<usize>,
}

/// The plan's buffers by id (a buffer that shares its home's memory holds a handle to the
/// home's allocation, `BufferTable::allocations`) and each one's own length in bytes.
struct Buffers {
    buffers: Vec<wgpu::Buffer>,
    bytes: Vec<u64>,
}

pub struct GpuBackend {
    pub ctx: Rc<GpuContext>,
    /// The product kernels' tiles, the context's when this backend was made.
    pub tiles: crate::tiles::TilePlan,
    plan: Plan,
    buffers: Buffers,
    /// The training step as it runs: the fused list (`Plan::fused`).
    fused: Vec<Dispatch>,
    /// The unfused list (`Plan::train`), built on first use: checkpointing's ranges, or every
    /// pass while `Plan::use_fused` is off.
    unfused: Option<Vec<Dispatch>>,
    predict: Vec<Dispatch>,
    evaluate: Vec<Dispatch>,
}

impl GpuBackend {
    pub async fn new(ctx: Rc<GpuContext>, mut plan: Plan) -> Result<Self, Error> {
        check_limits(&plan, &ctx.limits)?;
        let kernels = plan
            .train
            .iter_mut()
            .chain(&mut plan.fused)
            .chain(&mut plan.predict);
        for k in kernels.chain(&mut plan.evaluate) {
            k.fit_device(ctx.fit());
        }
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        // One allocation per home; a buffer sharing its home's memory holds a handle to it.
        let allocations = plan.table.allocations();
        let homes: Vec<Option<wgpu::Buffer>> = plan
            .table
            .specs
            .iter()
            .zip(&allocations)
            .map(|(spec, &len)| {
                (len > 0).then(|| {
                    ctx.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(&spec.name),
                        size: len as u64 * 4,
                        usage: wgpu::BufferUsages::STORAGE
                            | wgpu::BufferUsages::COPY_DST
                            | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    })
                })
            })
            .collect();
        let buffers = plan
            .table
            .specs
            .iter()
            .map(|s| homes[s.home.0].clone().expect("every home is allocated"))
            .collect();
        let buffers = Buffers {
            buffers,
            bytes: plan.table.specs.iter().map(|s| s.len as u64 * 4).collect(),
        };
        let build = |kernels: &[Box<dyn Kernel>]| build(&ctx, &buffers, kernels);
        let fused = build(&plan.fused);
        let unfused = (!plan.use_fused).then(|| build(&plan.train));
        let predict = build(&plan.predict);
        let evaluate = build(&plan.evaluate);
        // Pop both scopes before awaiting: scopes are a per-device stack, and another task
        // pushing in between would mismatch them.
        let (oom, validation) = (oom.pop(), scope.pop());
        if let Some(e) = oom.await {
            return Err(Error::GpuRefused(format!("the GPU ran out of memory: {e}")));
        }
        if let Some(e) = validation.await {
            return Err(Error::GpuRefused(format!("the GPU rejected the model: {e}")));
        }
        Ok(Self {
            tiles: ctx.tiles.get(),
            ctx,
            plan,
            buffers,
            fused,
            unfused,
            predict,
            evaluate,
        })
    }

    /// Runs whole training passes fused (the default) or as the teaching kernels.
    pub fn set_fused(&mut self, on: bool) {
        if !on {
            self.ensure_unfused();
        }
        self.plan.use_fused = on;
    }

    fn ensure_unfused(&mut self) {
        if self.unfused.is_none() {
            self.unfused = Some(build(&self.ctx, &self.buffers, &self.plan.train));
        }
    }

    pub fn write(&mut self, id: BufId, bytes: &[u8]) {
        self.write_at(id, 0, bytes);
    }

    /// Writes `bytes` into the buffer from byte `offset` on (a multiple of 4).
    pub fn write_at(&mut self, id: BufId, offset: u64, bytes: &[u8]) {
        self.ctx
            .queue
            .write_buffer(&self.buffers.buffers[id.0], offset, bytes);
    }

    pub fn run(&mut self, pass: Pass, step: &StepScalars) {
        let enc = self.record(pass, step);
        self.ctx.queue.submit([enc.finish()]);
    }

    /// Runs `pass` and reads `reads` (buffer, words) back in the same command buffer: one
    /// submit and one awaited readback for the lot.
    pub async fn run_and_read(
        &mut self,
        pass: Pass,
        step: &StepScalars,
        reads: &[(BufId, usize)],
    ) -> Result<Vec<Vec<u32>>, Error> {
        let enc = self.record(pass, step);
        self.read_after(enc, reads).await
    }

    /// Records copies of `reads` after what `enc` holds, submits it, and awaits them.
    async fn read_after(
        &self,
        mut enc: wgpu::CommandEncoder,
        reads: &[(BufId, usize)],
    ) -> Result<Vec<Vec<u32>>, Error> {
        let sources: Vec<_> = reads
            .iter()
            .map(|(id, len)| (&self.buffers.buffers[id.0], *len))
            .collect();
        let staged = self.ctx.stage(&mut enc, &sources);
        self.ctx.collect(enc, staged).await
    }

    /// Writes the step's uniforms and records the pass's dispatches.
    fn record(&mut self, pass: Pass, step: &StepScalars) -> wgpu::CommandEncoder {
        let all = 0..self.dispatches(pass).len();
        self.record_range(pass, all, step)
    }

    /// Runs the unfused training kernels `range` (rematerialization's stretches).
    pub fn run_train_range(&mut self, range: std::ops::Range<usize>, step: &StepScalars) {
        self.ensure_unfused();
        let kernels = &self.plan.train;
        let dispatches = &self.unfused.as_ref().expect("built above")[range];
        let enc = self.encode(kernels, dispatches, step);
        self.ctx.queue.submit([enc.finish()]);
    }

    /// Records the dispatches `range` of `pass`.
    fn record_range(
        &mut self,
        pass: Pass,
        range: std::ops::Range<usize>,
        step: &StepScalars,
    ) -> wgpu::CommandEncoder {
        // Dispatches index their kernel in the whole list (an update's start past the others).
        let kernels = match pass {
            Pass::Predict => &self.plan.predict,
            Pass::Evaluate => &self.plan.evaluate,
            _ => self.plan.step_list().0,
        };
        let dispatches = &self.dispatches(pass)[range];
        self.encode(kernels, dispatches, step)
    }

    /// Writes the per-step uniforms of `dispatches` (of `kernels`) and records them in one pass.
    fn encode(
        &self,
        kernels: &[Box<dyn Kernel>],
        dispatches: &[Dispatch],
        step: &StepScalars,
    ) -> wgpu::CommandEncoder {
        for d in dispatches {
            if let Some(i) = d.per_step {
                let words = kernels[i].params(step).padded();
                self.ctx
                    .queue
                    .write_buffer(&d.uniform, 0, bytemuck::cast_slice(&words));
            }
        }
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            for d in dispatches {
                pass.set_pipeline(&d.pipeline);
                pass.set_bind_group(0, &d.bind_group, &[]);
                pass.dispatch_workgroups(d.groups[0], d.groups[1], d.groups[2]);
            }
        }
        enc
    }

    /// Times every dispatch of `pass` on its own, ms per dispatch: by the GPU's timestamps where
    /// the device has them and they resolve every dispatch (a browser may round them to 0.1 ms,
    /// too coarse for a short kernel), else by the host's clock (`Clock::Repeated`).
    pub async fn profile(
        &mut self,
        pass: Pass,
        step: &StepScalars,
        reps: usize,
        now_ms: &dyn Fn() -> f64,
    ) -> Result<(Vec<f64>, Clock), Error> {
        self.run(pass, step); // uniforms for this step
        if self.ctx.timestamps {
            let times = self.profile_timestamps(pass, reps).await?;
            if times.iter().all(|t| *t > 0.0) {
                return Ok((times, Clock::Timestamps));
            }
        }
        Ok((self.profile_repeated(pass, reps, now_ms).await?, Clock::Repeated))
    }

    /// Each dispatch's `reps` copies in a compute pass of their own, the GPU's clock read at the
    /// pass's start and end; ms per copy.
    async fn profile_timestamps(&self, pass: Pass, reps: usize) -> Result<Vec<f64>, Error> {
        let count = self.dispatches(pass).len();
        let queries = self.ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("profile"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * count as u32,
        });
        let resolved = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("profile.timestamps"),
            size: 16 * count as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        for (i, d) in self.dispatches(pass).iter().enumerate() {
            let mut cp = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(2 * i as u32),
                    end_of_pass_write_index: Some(2 * i as u32 + 1),
                }),
            });
            cp.set_pipeline(&d.pipeline);
            cp.set_bind_group(0, &d.bind_group, &[]);
            for _ in 0..reps {
                cp.dispatch_workgroups(d.groups[0], d.groups[1], d.groups[2]);
            }
        }
        enc.resolve_query_set(&queries, 0..2 * count as u32, &resolved, 0);
        let staged = self.ctx.stage(&mut enc, &[(&resolved, 4 * count)]);
        let words = self.ctx.collect(enc, staged).await?.swap_remove(0);
        // Ticks of `period` nanoseconds, 64 bits little-endian: start, end per dispatch.
        let period = f64::from(self.ctx.queue.get_timestamp_period());
        let tick = |j: usize| u64::from(words[2 * j]) | (u64::from(words[2 * j + 1]) << 32);
        Ok((0..count)
            .map(|i| tick(2 * i + 1).saturating_sub(tick(2 * i)) as f64 * period / 1e6 / reps as f64)
            .collect())
    }

    /// `reps` copies of each dispatch in one submission, then a one-word readback to wait for
    /// them, minus the time of the readback alone; ms per copy.
    async fn profile_repeated(
        &self,
        pass: Pass,
        reps: usize,
        now_ms: &dyn Fn() -> f64,
    ) -> Result<Vec<f64>, Error> {
        let sync = self.plan.host.log_loss;
        self.read(sync, 1).await?;
        let t0 = now_ms();
        for _ in 0..reps {
            self.read(sync, 1).await?;
        }
        let readback = (now_ms() - t0) / reps as f64;
        let count = self.dispatches(pass).len();
        let mut times = Vec::with_capacity(count);
        for i in 0..count {
            let t0 = now_ms();
            let mut enc = self.ctx.device.create_command_encoder(&Default::default());
            {
                let d = &self.dispatches(pass)[i];
                let mut cp = enc.begin_compute_pass(&Default::default());
                cp.set_pipeline(&d.pipeline);
                cp.set_bind_group(0, &d.bind_group, &[]);
                for _ in 0..reps {
                    cp.dispatch_workgroups(d.groups[0], d.groups[1], d.groups[2]);
                }
            }
            self.ctx.queue.submit([enc.finish()]);
            self.read(sync, 1).await?;
            times.push(((now_ms() - t0 - readback) / reps as f64).max(0.0));
        }
        Ok(times)
    }

    fn dispatches(&self, pass: Pass) -> &[Dispatch] {
        let (train, start) = match (&self.unfused, self.plan.use_fused) {
            (Some(u), false) => (&u[..], self.plan.optimizer_start),
            _ => (&self.fused[..], self.plan.fused_optimizer_start),
        };
        match pass {
            Pass::Train => train,
            Pass::Gradient => &train[..start],
            Pass::Update => &train[start..],
            Pass::Predict => &self.predict[..],
            Pass::Evaluate => &self.evaluate[..],
        }
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub async fn read(&self, id: BufId, len: usize) -> Result<Vec<u32>, Error> {
        self.ctx.read_words(&self.buffers.buffers[id.0], len).await
    }
}

fn build(ctx: &GpuContext, buffers: &Buffers, kernels: &[Box<dyn Kernel>]) -> Vec<Dispatch> {
    kernels
        .iter()
        .enumerate()
        .map(|(i, k)| dispatch(ctx, buffers, k.as_ref(), i))
        .collect()
}

fn dispatch(ctx: &GpuContext, buffers: &Buffers, k: &dyn Kernel, index: usize) -> Dispatch {
    let pipeline = ctx.kernel_pipeline(k);
    let words = k.params(&StepScalars::default()).padded();
    let uniform = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("params"),
        size: words.len() as u64 * 4,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&uniform, 0, bytemuck::cast_slice(&words));
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: uniform.as_entire_binding(),
    }];
    for (binding, id) in k.bindings() {
        entries.push(wgpu::BindGroupEntry {
            binding,
            // Its own length: a buffer sharing a larger home sees only its part.
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &buffers.buffers[id.0],
                offset: 0,
                size: wgpu::BufferSize::new(buffers.bytes[id.0]),
            }),
        });
    }
    let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(k.shader().entry),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    Dispatch {
        pipeline,
        bind_group,
        uniform,
        groups: strided_groups(k, ctx.parallel_workgroups),
        per_step: k.per_step().then_some(index),
    }
}
