//! `DeviceWatch`: notices that the device the preview runs on was lost (a driver reset, an
//! unplugged GPU, a destroyed device), so the preview can move its water to the CPU instead of
//! stopping, and the editor can save a recovery copy at once.

use std::sync::{Arc, Mutex};

/// Watches one device for loss.
#[derive(Clone, Debug, Default)]
pub struct DeviceWatch {
    device: Option<wgpu::Device>,
    lost: Arc<Mutex<Option<String>>>,
}

impl DeviceWatch {
    /// Starts watching `device` (replacing any earlier watch of it: wgpu keeps one lost
    /// callback per device).
    pub fn install(device: &wgpu::Device) -> Self {
        let lost = Arc::new(Mutex::new(None));
        let slot = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut s) = slot.lock() {
                let why = if message.is_empty() {
                    format!("{reason:?}")
                } else {
                    format!("{reason:?}: {message}")
                };
                s.get_or_insert(why);
            }
        });
        Self {
            device: Some(device.clone()),
            lost,
        }
    }

    /// Whether this watch is on `device` (wgpu compares devices of one instance).
    pub fn watches(&self, device: &wgpu::Device) -> bool {
        self.device.as_ref() == Some(device)
    }

    /// Why the device was lost, once it has been.
    pub fn lost(&self) -> Option<String> {
        if let Some(device) = &self.device {
            // Lets wgpu run the lost callback of a device lost since the last poll.
            let _ = device.poll(wgpu::PollType::Poll);
        }
        self.lost.lock().ok().and_then(|s| s.clone())
    }
}
