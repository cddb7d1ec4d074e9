//! The window and what draws into it: a winit window, a wgpu surface and device that can
//! present to it and hold the level's water, and the [`Game`] drawn each frame (or once more
//! off screen for a screenshot).

use std::error::Error;
use std::path::Path;
use std::sync::Arc;

use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use spillway_game::Game;
use spillway_render::Camera;

use super::{Options, workspace};

/// The window, its surface and the game drawn into it.
pub struct Gfx {
    /// The window.
    pub window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The game drawn into it.
    pub game: Game,
}

impl Gfx {
    /// Opens the window, a device that can present to it and hold the level, and the game.
    pub fn new(
        event_loop: &ActiveEventLoop,
        opts: &Options,
        level: spillway::Level,
    ) -> Result<Self, Box<dyn Error>> {
        let attributes = Window::default_attributes()
            .with_title(format!("Spillway: {}", level.name))
            .with_inner_size(winit::dpi::PhysicalSize::new(1280, 720));
        let window = Arc::new(event_loop.create_window(attributes)?);
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance.create_surface(window.clone()).map_err(|e| {
            format!(
                "no GPU can draw to the window ({e}); install a Vulkan driver, or \
                 mesa-vulkan-drivers for lavapipe"
            )
        })?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            apply_limit_buckets: false,
        }))
        .map_err(|e| {
            format!(
                "no GPU adapter can draw to this window ({e}); install a Vulkan driver, or \
                 mesa-vulkan-drivers for lavapipe"
            )
        })?;
        let mut limits = spillway::gpu::required_limits(level.nx(), level.ny());
        // A larger flow tile where the adapter has the workgroup memory for it.
        limits.max_compute_workgroup_storage_size = limits
            .max_compute_workgroup_storage_size
            .max(adapter.limits().max_compute_workgroup_storage_size);
        // Textures as wide as the level (its terrain is drawn from them), where the adapter
        // has them: the default 8192 refused a wider level after it had loaded.
        let side = level.nx().max(level.ny()) as u32;
        limits.max_texture_dimension_2d = limits
            .max_texture_dimension_2d
            .max(side.min(adapter.limits().max_texture_dimension_2d));
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("spillway game"),
            required_limits: limits,
            ..Default::default()
        }))
        .map_err(|e| {
            format!(
                "{} cannot run a {} × {} level: {e}",
                adapter.get_info().name,
                level.nx(),
                level.ny()
            )
        })?;
        let caps = surface.get_capabilities(&adapter);
        let surface_format = *caps
            .formats
            .iter()
            .find(|f| !f.is_srgb())
            .or(caps.formats.first())
            .ok_or("the window's surface offers no format")?;
        let format = surface_format.remove_srgb_suffix();
        let size = window.inner_size();
        let most = device.limits().max_texture_dimension_2d;
        let [width, height] =
            surface_size([size.width.max(1), size.height.max(1)], most).unwrap_or([1, 1]);
        // Copies of the frame let the water show the ground through it (`render_to`).
        let usage =
            wgpu::TextureUsages::RENDER_ATTACHMENT | (caps.usages & wgpu::TextureUsages::COPY_SRC);
        let config = wgpu::SurfaceConfiguration {
            usage,
            format: surface_format,
            width,
            height,
            present_mode: if opts.frames.is_some() {
                wgpu::PresentMode::AutoNoVsync
            } else {
                wgpu::PresentMode::AutoVsync
            },
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            color_space: wgpu::SurfaceColorSpace::Auto,
            view_formats: if format == surface_format {
                vec![]
            } else {
                vec![format]
            },
        };
        surface.configure(&device, &config);
        println!(
            "GPU: {} ({:?}); level {} × {} cells of {} m",
            adapter.get_info().name,
            adapter.get_info().backend,
            level.nx(),
            level.ny(),
            level.cell_size
        );
        // `level.ron` alone has the empty path as its folder: the current one.
        let dir = (opts.level.parent())
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let game = Game::new(level, &dir, &workspace(), &device, &queue, format)?;
        Ok(Self {
            window,
            surface,
            config,
            game,
        })
    }

    /// Reconfigures the surface for the window's size, no larger than the device draws.
    pub fn resize(&mut self) {
        let size = self.window.inner_size();
        let most = self.game.device().limits().max_texture_dimension_2d;
        if let Some([width, height]) = surface_size([size.width, size.height], most) {
            self.config.width = width;
            self.config.height = height;
            self.surface.configure(self.game.device(), &self.config);
        }
    }

    /// Draws one frame to the window; false if the surface had no image this time.
    pub fn present(&mut self, cam: &Camera, time: f32) -> Result<bool, Box<dyn Error>> {
        use wgpu::CurrentSurfaceTexture as T;
        let frame = match self.surface.get_current_texture() {
            T::Success(f) | T::Suboptimal(f) => f,
            T::Timeout | T::Occluded => return Ok(false),
            T::Outdated | T::Lost => {
                self.resize();
                return Ok(false);
            }
            T::Validation => return Err("the window's surface failed validation".into()),
        };
        let size = [self.config.width, self.config.height];
        self.game.draw(&frame.texture, size, cam, time);
        self.game.queue().present(frame);
        Ok(true)
    }

    /// Draws the frame once more off screen and writes it to `path` as a PNG.
    pub fn screenshot(
        &mut self,
        cam: &Camera,
        time: f32,
        path: &Path,
    ) -> Result<(), Box<dyn Error>> {
        let size = [self.config.width, self.config.height];
        let (w, h, rgba) = self.game.snapshot(size, cam, time)?;
        image::save_buffer(path, &rgba, w, h, image::ColorType::Rgba8)
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("screenshot: {}", path.display());
        Ok(())
    }
}

/// The surface for a window of `size` pixels: at most `most` a side, at the window's aspect
/// (a window stretched over monitors past the device's texture limit failed validation);
/// `None` for a window with no area (minimised).
fn surface_size(size: [u32; 2], most: u32) -> Option<[u32; 2]> {
    (size[0] > 0 && size[1] > 0)
        .then(|| spillway_render::Scene::image_size(size.map(|s| s as f32), most))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_window_past_the_devices_limit_gets_a_surface_within_it() {
        assert_eq!(super::surface_size([12000, 3000], 8192), Some([8192, 2048]));
        assert_eq!(super::surface_size([1920, 1080], 8192), Some([1920, 1080]));
        assert_eq!(super::surface_size([0, 1080], 8192), None);
    }
}
