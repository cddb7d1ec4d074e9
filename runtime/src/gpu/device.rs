//! Devices: choosing an adapter for headless use, the limits the solver needs, and checking a
//! given device against them.

use super::GpuError;
use super::flow::{FOLD_STORAGE_BUFFERS, pick_tile, smallest_tile};
use super::kernel::ErrorSink;
use super::state::{CONTROL_BYTES, TABLE_BYTES, tile_bytes};

/// Environment variable that picks an adapter by a part of its name (case-insensitive).
pub const ADAPTER_ENV: &str = "SPILLWAY_GPU_ADAPTER";

/// Storage buffers the busiest pass binds (the blocked pass; the plain ones bind at most 7).
const STORAGE_BUFFERS: u32 = 8;

/// A device and queue with what the solver knows about them.
#[derive(Clone)]
pub(crate) struct Context {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: String,
    /// Errors outside error scopes, when we own the device.
    pub errors: Option<ErrorSink>,
    /// Flow-pass tile that fits the device.
    pub tile: (u32, u32),
}

/// Bytes of the largest buffer an `nx × ny` level makes: the two halves of the face velocities
/// (both face grids), or for small levels the step table or the breaches' state words.
pub fn largest_buffer(nx: usize, ny: usize) -> u64 {
    let faces = ((nx + 1) * ny + nx * (ny + 1)) as u64;
    let perimeter = 2 * (nx + ny) as u64;
    let breaches = 8 * crate::level::structure::MAX_STRUCTURES as u64;
    (2 * 4 * faces)
        .max(CONTROL_BYTES + TABLE_BYTES + 4 * perimeter)
        .max(breaches)
}

/// The limits a device must grant to run an `nx × ny` level (with the smallest flow tile; a
/// device with more workgroup memory gets a larger tile). Pass these to the device you create
/// for the editor (e.g. eframe's `WgpuSetup`) so the solver can share it; 8192 × 8192 needs
/// about 1024 MiB of storage bindings (the velocities' two halves).
pub fn required_limits(nx: usize, ny: usize) -> wgpu::Limits {
    let (tw, th) = smallest_tile();
    let big = largest_buffer(nx, ny);
    let base = wgpu::Limits::default();
    wgpu::Limits {
        max_storage_buffer_binding_size: big.max(base.max_storage_buffer_binding_size),
        max_buffer_size: big.max(base.max_buffer_size),
        max_storage_buffers_per_shader_stage: STORAGE_BUFFERS
            .max(base.max_storage_buffers_per_shader_stage),
        max_compute_workgroup_storage_size: tile_bytes(tw, th)
            .max(base.max_compute_workgroup_storage_size),
        ..base
    }
}

/// The limits to ask of an adapter for an `nx × ny` level, as
/// `preferred_limits(nx, ny).or_worse_values_from(&adapter.limits())`: [`required_limits`], and
/// the storage bindings that let the flow pass fold the maps of the run in (the editor keeps
/// them; a device without them runs the maps as a pass of their own).
pub fn preferred_limits(nx: usize, ny: usize) -> wgpu::Limits {
    wgpu::Limits {
        max_storage_buffers_per_shader_stage: FOLD_STORAGE_BUFFERS,
        ..required_limits(nx, ny)
    }
}

/// Checks that `have` grants what an `nx × ny` level needs, and picks the flow tile.
pub(crate) fn check_limits(
    have: &wgpu::Limits,
    nx: usize,
    ny: usize,
) -> Result<(u32, u32), GpuError> {
    let need = required_limits(nx, ny);
    // The largest buffer the level makes: a device with less than wgpu's default buffer
    // limits (some mobile and web devices) still runs a level that fits.
    let big = largest_buffer(nx, ny);
    let checks: [(&'static str, u64, u64); 6] = [
        (
            "max_storage_buffer_binding_size",
            big,
            have.max_storage_buffer_binding_size,
        ),
        ("max_buffer_size", big, have.max_buffer_size),
        (
            "max_storage_buffers_per_shader_stage",
            need.max_storage_buffers_per_shader_stage.into(),
            have.max_storage_buffers_per_shader_stage.into(),
        ),
        (
            "max_compute_invocations_per_workgroup",
            need.max_compute_invocations_per_workgroup.into(),
            have.max_compute_invocations_per_workgroup.into(),
        ),
        (
            "max_compute_workgroup_size_x",
            need.max_compute_workgroup_size_x.into(),
            have.max_compute_workgroup_size_x.into(),
        ),
        (
            "max_compute_workgroups_per_dimension",
            (nx.max(ny) as u64).div_ceil(16).max(nx as u64 / 60),
            have.max_compute_workgroups_per_dimension.into(),
        ),
    ];
    for (name, needed, available) in checks {
        if available < needed {
            return Err(GpuError::Limit {
                name,
                needed,
                available,
            });
        }
    }
    pick_tile(have.max_compute_workgroup_storage_size).ok_or(GpuError::Limit {
        name: "max_compute_workgroup_storage_size",
        needed: need.max_compute_workgroup_storage_size.into(),
        available: have.max_compute_workgroup_storage_size.into(),
    })
}

/// Adapters in order of preference: the one named by `SPILLWAY_GPU_ADAPTER` if set, then
/// discrete, integrated, virtual, other and finally software (CPU) adapters.
/// None at all is [`GpuError::NoAdapter`]; none of the name asked for,
/// [`GpuError::NoAdapterNamed`] with the names there are.
fn ranked_adapters(instance: &wgpu::Instance) -> Result<Vec<wgpu::Adapter>, GpuError> {
    let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    if adapters.is_empty() {
        return Err(GpuError::NoAdapter);
    }
    if let Ok(wanted) = std::env::var(ADAPTER_ENV) {
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let w = wanted.to_lowercase();
        adapters.retain(|a| a.get_info().name.to_lowercase().contains(&w));
        if adapters.is_empty() {
            return Err(GpuError::NoAdapterNamed {
                wanted,
                found: names.join(", "),
            });
        }
    }
    let rank = |a: &wgpu::Adapter| {
        let info = a.get_info();
        let kind = match info.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        };
        // Vulkan first: it is what the solver is tuned and tested on.
        (kind, info.backend != wgpu::Backend::Vulkan)
    };
    adapters.sort_by_key(rank);
    Ok(adapters)
}

/// The process's wgpu instance, made once and shared by every headless simulation: drivers
/// cap how many instances a process may create (NVIDIA's found no adapter on about the
/// thirtieth), so a game or a test run that makes many simulations must not make one each.
///
/// It looks for Vulkan, Metal and Direct3D 12 adapters only (`WGPU_BACKEND` overrides): the
/// solver is tuned and tested on Vulkan, and dropping an OpenGL adapter that was enumerated
/// beside them crashed a test run once (`BadAccess` from EGL, another thread's context current).
fn instance() -> wgpu::Instance {
    static INSTANCE: std::sync::OnceLock<wgpu::Instance> = std::sync::OnceLock::new();
    INSTANCE
        .get_or_init(|| {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
            desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
            wgpu::Instance::new(desc)
        })
        .clone()
}

/// Name of the adapter a headless simulation would use.
pub fn adapter_name() -> Result<String, GpuError> {
    ranked_adapters(&instance())?
        .first()
        .map(|a| a.get_info().name)
        .ok_or(GpuError::NoAdapter)
}

/// Name of the best hardware (non-software) adapter, if the machine has one: where it does,
/// the GPU solver is the better default.
pub fn hardware_adapter() -> Option<String> {
    ranked_adapters(&instance())
        .ok()?
        .into_iter()
        .map(|a| a.get_info())
        .find(|i| i.device_type != wgpu::DeviceType::Cpu)
        .map(|i| i.name)
}

/// Creates a device of its own for an `nx × ny` level on the best adapter that can hold it,
/// with `features` where the adapter has them (e.g. timestamp queries for the bench).
pub(crate) fn headless(
    nx: usize,
    ny: usize,
    features: wgpu::Features,
) -> Result<Context, GpuError> {
    let adapters = ranked_adapters(&instance())?;
    let mut first_err = None;
    for adapter in adapters {
        let have = adapter.limits();
        let tile = match check_limits(&have, nx, ny) {
            Ok(t) => t,
            Err(e) => {
                first_err.get_or_insert(e);
                continue;
            }
        };
        let mut limits = required_limits(nx, ny);
        limits.max_compute_workgroup_storage_size =
            tile_bytes(tile.0, tile.1).max(limits.max_compute_workgroup_storage_size);
        limits.max_storage_buffers_per_shader_stage = have
            .max_storage_buffers_per_shader_stage
            .min(FOLD_STORAGE_BUFFERS)
            .max(limits.max_storage_buffers_per_shader_stage);
        let desc = wgpu::DeviceDescriptor {
            label: Some("spillway water"),
            required_features: features & adapter.features(),
            required_limits: limits,
            ..Default::default()
        };
        match pollster::block_on(adapter.request_device(&desc)) {
            Ok((device, queue)) => {
                let errors = ErrorSink::default();
                errors.install(&device);
                return Ok(Context {
                    device,
                    queue,
                    adapter: adapter.get_info().name,
                    errors: Some(errors),
                    tile,
                });
            }
            Err(e) => {
                first_err.get_or_insert(GpuError::RequestDevice(e.to_string()));
            }
        }
    }
    Err(first_err.unwrap_or(GpuError::NoAdapter))
}

/// Wraps a device someone else created (the editor's), after checking its limits.
pub(crate) fn adopt(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    nx: usize,
    ny: usize,
) -> Result<Context, GpuError> {
    let tile = check_limits(&device.limits(), nx, ny)?;
    Ok(Context {
        device: device.clone(),
        queue: queue.clone(),
        adapter: device.adapter_info().name,
        errors: None,
        tile,
    })
}
