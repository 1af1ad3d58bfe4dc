//! Reading results back from the GPU: every buffer a frame needs copied into one staging buffer,
//! in the command buffer that computed them, and awaited once. Staging buffers are kept between
//! readbacks, so a frame allocates none. The count of readbacks is kept for the benchmark.

use crate::error::{DeviceError, Error};
use crate::gpu::GpuContext;

/// Copies recorded into a staging buffer, waiting for their command buffer to be submitted.
pub struct Staged {
    buffer: wgpu::Buffer,
    /// Words of each source, in order.
    lens: Vec<usize>,
}

/// Staging buffers come in powers of two from 256 bytes, so a few serve every size.
fn staging_size(bytes: u64) -> u64 {
    bytes.max(256).next_power_of_two()
}

impl GpuContext {
    /// Records copies of `len` words from the start of each source into one staging buffer.
    pub fn stage(&self, enc: &mut wgpu::CommandEncoder, sources: &[(&wgpu::Buffer, usize)]) -> Staged {
        let total: u64 = sources.iter().map(|(_, len)| *len as u64 * 4).sum();
        let size = staging_size(total);
        let buffer = {
            let mut pool = self.staging.borrow_mut();
            match pool.iter().position(|b| b.size() == size) {
                Some(i) => pool.swap_remove(i),
                None => self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
            }
        };
        let mut at = 0;
        for (src, len) in sources {
            let bytes = *len as u64 * 4;
            if bytes > 0 {
                enc.copy_buffer_to_buffer(src, 0, &buffer, at, bytes);
            }
            at += bytes;
        }
        Staged {
            buffer,
            lens: sources.iter().map(|(_, len)| *len).collect(),
        }
    }

    /// Submits `enc` and awaits the staged words, one vector per source.
    pub async fn collect(&self, enc: wgpu::CommandEncoder, staged: Staged) -> Result<Vec<Vec<u32>>, Error> {
        self.queue.submit([enc.finish()]);
        self.readbacks.set(self.readbacks.get() + 1);
        let Staged { buffer, lens } = staged;
        let (tx, rx) = futures_channel::oneshot::channel();
        buffer.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        // Natively someone has to drive the device; in the browser the event loop does.
        #[cfg(not(target_arch = "wasm32"))]
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| DeviceError::Poll(e.to_string()))?;
        rx.await
            .map_err(|_| DeviceError::Gone)?
            .map_err(|e| DeviceError::Readback(e.to_string()))?;
        let out = {
            let mapped = buffer
                .get_mapped_range(..)
                .map_err(|e| DeviceError::Readback(e.to_string()))?;
            let words = bytemuck::cast_slice::<u8, u32>(&mapped);
            let mut at = 0;
            lens.iter()
                .map(|&len| {
                    let v = words[at..at + len].to_vec();
                    at += len;
                    v
                })
                .collect()
        };
        buffer.unmap();
        self.staging.borrow_mut().push(buffer);
        Ok(out)
    }

    /// Staging buffers kept for the next readbacks.
    pub fn staging_buffers(&self) -> usize {
        self.staging.borrow().len()
    }

    /// Readbacks awaited on this device so far.
    pub fn readbacks(&self) -> u64 {
        self.readbacks.get()
    }
}
