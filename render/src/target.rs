//! `RenderTarget`: the offscreen colour (`Rgba8Unorm` by default, sRGB-encoded values as egui
//! expects of a native texture) and depth textures the viewport renders into, and reading them
//! back; [`depth_texture`] for frames drawn into someone else's colour target.

use crate::RenderError;

/// Format of the colour target unless the renderer was made for another one.
pub const COLOUR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Format of the depth target.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The colour and depth textures of one viewport size.
pub struct RenderTarget {
    colour: wgpu::Texture,
    colour_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
    format: wgpu::TextureFormat,
    size: [u32; 2],
}

/// The texture size of an image of `size` pixels (each side at least 1).
fn extent(size: [u32; 2]) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: size[0].max(1),
        height: size[1].max(1),
        depth_or_array_layers: 1,
    }
}

/// A depth texture of `size` pixels (each side at least 1) for the passes to test against.
pub fn depth_texture(device: &wgpu::Device, size: [u32; 2]) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("viewport depth"),
            size: extent(size),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            // Copied for the water to see what lies in front of it (refraction).
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor::default())
}

impl RenderTarget {
    /// Textures of `size` pixels (each side at least 1), the colour one of `format`.
    pub fn new(device: &wgpu::Device, size: [u32; 2], format: wgpu::TextureFormat) -> Self {
        let extent = extent(size);
        let colour = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("viewport colour"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        Self {
            colour_view: colour.create_view(&wgpu::TextureViewDescriptor::default()),
            depth_view: depth_texture(device, size),
            colour,
            format,
            size: [extent.width, extent.height],
        }
    }

    /// Size in pixels.
    pub fn size(&self) -> [u32; 2] {
        self.size
    }

    /// The colour texture.
    pub fn colour_texture(&self) -> &wgpu::Texture {
        &self.colour
    }

    /// The colour texture's view (what egui shows).
    pub fn colour_view(&self) -> &wgpu::TextureView {
        &self.colour_view
    }

    /// The depth texture's view.
    pub fn depth_view(&self) -> &wgpu::TextureView {
        &self.depth_view
    }

    /// Copies the colour texture back to the CPU as tightly packed RGBA rows (blocking; BGRA
    /// targets are swizzled to RGBA).
    pub fn read_rgba(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u8>, RenderError> {
        let [w, h] = self.size;
        let row = w * 4;
        let padded =
            row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport read-back"),
            size: padded as u64 * h as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("viewport read-back"),
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.colour,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        buffer.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        device.poll(wgpu::PollType::wait_indefinitely())?;
        rx.recv().map_err(|_| RenderError::ReadBackLost)??;
        let view = buffer.get_mapped_range(..)?;
        let mut out = Vec::with_capacity((row * h) as usize);
        for y in 0..h as usize {
            let start = y * padded as usize;
            out.extend_from_slice(&view[start..start + row as usize]);
        }
        drop(view);
        buffer.unmap();
        if matches!(
            self.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            out.chunks_exact_mut(4).for_each(|p| p.swap(0, 2));
        }
        Ok(out)
    }
}
