//! The copy of the frame before the water, colour and depth, that the water pass sees the
//! ground through at High quality: refraction bends the view into the colour copy, and the
//! depth copy tells ground behind the water (seen through it) from a bank or body in front of
//! it (never seen through it).

use crate::target::DEPTH_FORMAT;

/// A copy of one frame's colour and depth, with the generation that names it to the water
/// pass's bind group.
pub(crate) struct BelowCopy {
    pub size: [u32; 2],
    pub colour: wgpu::Texture,
    pub colour_view: wgpu::TextureView,
    pub depth: wgpu::Texture,
    pub depth_view: wgpu::TextureView,
    pub generation: u64,
}

impl BelowCopy {
    /// Textures for frames of `size` whose colour is `format`.
    pub fn new(
        device: &wgpu::Device,
        size: [u32; 2],
        format: wgpu::TextureFormat,
        generation: u64,
    ) -> Self {
        let (colour, colour_view) = texture(device, size, format);
        let (depth, depth_view) = texture(device, size, DEPTH_FORMAT);
        Self {
            size,
            colour,
            colour_view,
            depth,
            depth_view,
            generation,
        }
    }

    /// Whether it holds frames of `size` whose colour is `format`.
    pub fn fits(&self, size: [u32; 2], format: wgpu::TextureFormat) -> bool {
        self.size == size && self.colour.format() == format
    }

    /// Records copies of `colour` and `depth` (textures of [`Self::fits`]) into it.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        colour: &wgpu::Texture,
        depth: &wgpu::Texture,
    ) {
        let extent = wgpu::Extent3d {
            width: self.size[0],
            height: self.size[1],
            depth_or_array_layers: 1,
        };
        encoder.copy_texture_to_texture(
            colour.as_image_copy(),
            self.colour.as_image_copy(),
            extent,
        );
        encoder.copy_texture_to_texture(depth.as_image_copy(), self.depth.as_image_copy(), extent);
    }
}

/// A texture of `size` in `format` that a frame can be copied into and the water pass read
/// (colour through its linear view).
fn texture(
    device: &wgpu::Device,
    size: [u32; 2],
    format: wgpu::TextureFormat,
) -> (wgpu::Texture, wgpu::TextureView) {
    let linear = format.remove_srgb_suffix();
    let formats = [linear];
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("viewport under the water"),
        size: wgpu::Extent3d {
            width: size[0].max(1),
            height: size[1].max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: if linear == format { &[] } else { &formats },
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        format: Some(linear),
        ..Default::default()
    });
    (texture, view)
}
