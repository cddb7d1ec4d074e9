//! The transform `Gizmo` of the selected body, drawn with egui's painter over the viewport:
//! arrows along x, y and z to move it (W), rings about x, y and z to rotate it (E), and boxes
//! on its own axes plus a centre square to scale it (R). A [`GizmoDrag`] turns a drag on a
//! handle into the body's new placement; the app records each drag as one undo step.

use egui::{Color32, Painter, Pos2, Stroke, Vec2};
use spillway::level::Body;

use super::water_overlay::View;
use crate::tools::body::{normalised, quat_axis, quat_mul};
use spillway_render::math::Vec3;

/// Length of the gizmo's arrows on screen, points.
pub const ARROW_POINTS: f32 = 90.0;
/// How close to a handle a press must be to grab it, points.
const GRAB: f32 = 9.0;
/// Points along a ring.
const RING_POINTS: usize = 64;
/// Smallest scale a drag can reach.
const MIN_SCALE: f32 = 0.02;

/// What dragging the gizmo does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GizmoMode {
    /// Move along an axis (W).
    #[default]
    Move,
    /// Rotate about an axis (E).
    Rotate,
    /// Scale along one of the body's axes, or uniformly (R).
    Scale,
}

impl GizmoMode {
    /// Every mode, in the inspector's order.
    pub const ALL: [GizmoMode; 3] = [GizmoMode::Move, GizmoMode::Rotate, GizmoMode::Scale];

    /// The name and key, for buttons.
    pub fn name(self) -> &'static str {
        match self {
            GizmoMode::Move => "Move (W)",
            GizmoMode::Rotate => "Rotate (E)",
            GizmoMode::Scale => "Scale (R)",
        }
    }
}

/// One part of the gizmo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// The arrow, ring or box of axis 0 (x), 1 (y) or 2 (z).
    Axis(usize),
    /// The centre square: uniform scale.
    Centre,
}

/// Axis colours: x red, y green, z blue.
const AXIS_COLOURS: [Color32; 3] = [
    Color32::from_rgb(235, 70, 70),
    Color32::from_rgb(90, 210, 80),
    Color32::from_rgb(70, 130, 255),
];
/// Colour of the handle under the cursor or being dragged.
const ACTIVE: Color32 = Color32::from_rgb(255, 220, 90);

/// The gizmo of one body as it appears on screen this frame.
#[derive(Clone, Debug)]
pub struct Gizmo {
    /// The mode it was laid out for.
    pub mode: GizmoMode,
    /// The body's origin on screen.
    pub centre: Pos2,
    /// The world axes (move, rotate) or the body's axes (scale).
    axes: [Vec3; 3],
    /// Screen end point of each axis (`None` behind the eye).
    ends: [Option<Pos2>; 3],
    /// Each axis' ring (rotate mode).
    rings: [Vec<Pos2>; 3],
    /// Whether each axis points towards the eye.
    facing: [bool; 3],
    /// World length of the arrows, metres.
    pub length: f32,
}

impl Gizmo {
    /// Lays the gizmo of `body` out for `view`, seen from `eye`, with arrows `ARROW_POINTS`
    /// long on screen. `None` when the body is behind the eye.
    pub fn layout(view: &View, eye: Vec3, body: &Body, mode: GizmoMode) -> Option<Gizmo> {
        let origin = Vec3::new(
            body.translation[0],
            body.translation[1],
            body.translation[2],
        );
        let centre = view.screen(origin)?;
        // Metres per point at the body: from a step across the view, square to the line of
        // sight (an upright step shrank to nothing looking straight down, and the arrows grew
        // off the screen).
        let dist = (eye - origin).length().max(1e-3);
        let sight = (origin - eye) * (1.0 / dist);
        let across = match sight.cross(Vec3::new(0.0, 0.0, 1.0)) {
            side if side.length() > 0.1 => side.normalized(),
            _ => sight.cross(Vec3::new(1.0, 0.0, 0.0)).normalized(),
        };
        let probe = view.screen(origin + across * (dist * 0.01))?;
        let points_per_metre = (probe - centre).length() / (dist * 0.01);
        let length = if points_per_metre > 1e-6 {
            ARROW_POINTS / points_per_metre.max(1e-6)
        } else {
            dist * 0.1
        };
        let world = [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ];
        let pose = spillway::body::Pose::of(body);
        let axes = match mode {
            GizmoMode::Scale => world.map(|a| {
                let [x, y, z] = pose.rotate(a.to_array());
                Vec3::new(x, y, z)
            }),
            _ => world,
        };
        let ends = axes.map(|a| view.screen(origin + a * length));
        let facing = axes.map(|a| a.dot(eye - origin) > 0.0);
        let rings = if mode == GizmoMode::Rotate {
            axes.map(|a| {
                let (u, v) = perpendiculars(a);
                (0..=RING_POINTS)
                    .filter_map(|k| {
                        let t = k as f32 / RING_POINTS as f32 * std::f32::consts::TAU;
                        view.screen(origin + (u * t.cos() + v * t.sin()) * (length * 0.8))
                    })
                    .collect()
            })
        } else {
            Default::default()
        };
        Some(Gizmo {
            mode,
            centre,
            axes,
            ends,
            rings,
            facing,
            length,
        })
    }

    /// The point to grab handle `h` at (arrow tip, box, or a point of the ring).
    pub fn grab_point(&self, h: Handle) -> Option<Pos2> {
        match (h, self.mode) {
            (Handle::Centre, _) => Some(self.centre),
            (Handle::Axis(k), GizmoMode::Rotate) => {
                // The ring point farthest from the centre: never hidden behind another handle.
                self.rings[k].iter().copied().max_by(|a, b| {
                    (*a - self.centre)
                        .length()
                        .total_cmp(&(*b - self.centre).length())
                })
            }
            (Handle::Axis(k), _) => self.ends[k].map(|e| self.centre + (e - self.centre) * 0.9),
        }
    }

    /// The handle under screen point `p`, if any.
    pub fn hit(&self, p: Pos2) -> Option<Handle> {
        let mut best: Option<(f32, Handle)> = None;
        let mut consider = |d: f32, h: Handle| {
            if d < GRAB && best.is_none_or(|(b, _)| d < b) {
                best = Some((d, h));
            }
        };
        match self.mode {
            GizmoMode::Rotate => {
                for (k, ring) in self.rings.iter().enumerate() {
                    for w in ring.windows(2) {
                        consider(segment_distance(p, w[0], w[1]), Handle::Axis(k));
                    }
                }
            }
            GizmoMode::Move | GizmoMode::Scale => {
                for k in 0..3 {
                    if let Some(e) = self.ends[k] {
                        consider(segment_distance(p, self.centre, e), Handle::Axis(k));
                    }
                }
                if self.mode == GizmoMode::Scale {
                    consider((p - self.centre).length() - 3.0, Handle::Centre);
                }
            }
        }
        best.map(|(_, h)| h)
    }

    /// Paints the gizmo; `active` is highlighted.
    pub fn paint(&self, painter: &Painter, active: Option<Handle>) {
        let colour = |k: usize| {
            if active == Some(Handle::Axis(k)) {
                ACTIVE
            } else {
                AXIS_COLOURS[k]
            }
        };
        let shadow = Stroke::new(5.0, Color32::from_black_alpha(110));
        match self.mode {
            GizmoMode::Rotate => {
                for (k, ring) in self.rings.iter().enumerate() {
                    painter.add(egui::Shape::line(ring.clone(), shadow));
                    painter.add(egui::Shape::line(ring.clone(), Stroke::new(2.5, colour(k))));
                }
            }
            GizmoMode::Move | GizmoMode::Scale => {
                for k in 0..3 {
                    let Some(end) = self.ends[k] else { continue };
                    painter.line_segment([self.centre, end], shadow);
                    painter.line_segment([self.centre, end], Stroke::new(2.5, colour(k)));
                    if self.mode == GizmoMode::Move {
                        arrow_head(painter, self.centre, end, colour(k));
                    } else {
                        let r = egui::Rect::from_center_size(end, egui::vec2(10.0, 10.0));
                        painter.rect_filled(r, 1.0, colour(k));
                        painter.rect_stroke(
                            r,
                            1.0,
                            Stroke::new(1.0, Color32::BLACK),
                            egui::StrokeKind::Outside,
                        );
                    }
                }
                if self.mode == GizmoMode::Scale {
                    let c = if active == Some(Handle::Centre) {
                        ACTIVE
                    } else {
                        Color32::WHITE
                    };
                    let r = egui::Rect::from_center_size(self.centre, egui::vec2(11.0, 11.0));
                    painter.rect_filled(r, 1.0, c);
                    painter.rect_stroke(
                        r,
                        1.0,
                        Stroke::new(1.0, Color32::BLACK),
                        egui::StrokeKind::Outside,
                    );
                }
            }
        }
        painter.circle_filled(self.centre, 3.0, Color32::WHITE);
    }
}

fn arrow_head(painter: &Painter, from: Pos2, to: Pos2, colour: Color32) {
    let d = to - from;
    if d.length() < 1.0 {
        return;
    }
    let dir = d.normalized();
    let side = Vec2::new(-dir.y, dir.x);
    let points = vec![
        to + dir * 4.0,
        to - dir * 10.0 + side * 6.0,
        to - dir * 10.0 - side * 6.0,
    ];
    painter.add(egui::Shape::convex_polygon(
        points,
        colour,
        Stroke::new(1.0, Color32::BLACK),
    ));
}

/// Two unit vectors perpendicular to unit `a` and to each other.
fn perpendiculars(a: Vec3) -> (Vec3, Vec3) {
    let other = if a.z.abs() < 0.9 {
        Vec3::new(0.0, 0.0, 1.0)
    } else {
        Vec3::new(1.0, 0.0, 0.0)
    };
    let u = a.cross(other).normalized();
    (u, a.cross(u).normalized())
}

fn segment_distance(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let len2 = ab.length_sq();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * t)).length()
}

/// A drag on a gizmo handle in progress.
#[derive(Clone, Debug)]
pub struct GizmoDrag {
    /// The body dragged.
    pub index: usize,
    /// The handle held.
    pub handle: Handle,
    /// The gizmo as laid out when the drag began.
    gizmo: Gizmo,
    /// Where the pointer was pressed.
    start: Pos2,
    /// The body before the drag.
    pub before: Body,
}

impl GizmoDrag {
    /// Starts dragging `handle` of `gizmo` (body `index`, now `body`) from screen point `start`.
    pub fn begin(index: usize, body: &Body, gizmo: Gizmo, handle: Handle, start: Pos2) -> Self {
        Self {
            index,
            handle,
            gizmo,
            start,
            before: body.clone(),
        }
    }

    /// The label of the undo step this drag becomes.
    pub fn label(&self) -> &'static str {
        match self.gizmo.mode {
            GizmoMode::Move => "Move body",
            GizmoMode::Rotate => "Rotate body",
            GizmoMode::Scale => "Scale body",
        }
    }

    /// Whether the drag scales the body.
    pub fn scales(&self) -> bool {
        self.gizmo.mode == GizmoMode::Scale
    }

    /// How far along axis `k` (metres) the pointer has moved, from its screen direction.
    fn along(&self, k: usize, p: Pos2) -> f32 {
        let Some(end) = self.gizmo.ends[k] else {
            return 0.0;
        };
        let d = end - self.gizmo.centre;
        let len2 = d.length_sq();
        if len2 < 1.0 {
            return 0.0;
        }
        (p - self.start).dot(d) / len2 * self.gizmo.length
    }

    /// The body as the pointer at `p` places it.
    pub fn body_at(&self, p: Pos2) -> Body {
        let mut body = self.before.clone();
        let g = &self.gizmo;
        match (g.mode, self.handle) {
            (GizmoMode::Move, Handle::Axis(k)) => body.translation[k] += self.along(k, p),
            (GizmoMode::Rotate, Handle::Axis(k)) => {
                let angle_of = |q: Pos2| {
                    let v = q - g.centre;
                    (-v.y).atan2(v.x)
                };
                let mut angle = angle_of(p) - angle_of(self.start);
                if !g.facing[k] {
                    angle = -angle;
                }
                let a = g.axes[k];
                let turn = quat_axis([a.x, a.y, a.z], angle);
                body.rotation = normalised(quat_mul(turn, self.before.rotation));
            }
            (GizmoMode::Scale, Handle::Axis(k)) => {
                let factor = (1.0 + self.along(k, p) / g.length.max(1e-6)).max(MIN_SCALE);
                body.scale[k] = (self.before.scale[k] * factor).max(MIN_SCALE);
            }
            (_, Handle::Centre) => {
                let r0 = (self.start - g.centre).length().max(4.0);
                let factor = 1.0 + ((p - g.centre).length() - r0) / (ARROW_POINTS * 0.5);
                body.scale = self
                    .before
                    .scale
                    .map(|s| (s * factor.max(MIN_SCALE)).max(MIN_SCALE));
            }
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use spillway_render::math::Vec3;
    use spillway_render::{Bounds, Camera};

    use super::super::water_overlay::View;
    use super::{ARROW_POINTS, Gizmo, GizmoMode};

    #[test]
    fn the_arrows_keep_their_screen_length_looking_straight_down() {
        // Measured with an upright step, the scale shrank to nothing from above: the arrows
        // grew some 45 times too long and ran off the screen.
        let body = crate::document::bodies::test_body("crate", "crate.glb", [10.0, 10.0, 1.0]);
        let bounds = Bounds {
            min: Vec3::new(0.0, 0.0, 0.0),
            max: Vec3::new(20.0, 20.0, 2.0),
        };
        let rect = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(800.0, 600.0));
        for pitch in [0.4, 1.55] {
            let camera = Camera {
                target: Vec3::new(10.0, 10.0, 1.0),
                yaw: 0.3,
                pitch,
                distance: 30.0,
            };
            let view = View::new(&camera, rect, &bounds);
            let g = Gizmo::layout(&view, camera.eye(), &body, GizmoMode::Move).expect("seen");
            let centre = view.screen(Vec3::new(10.0, 10.0, 1.0)).expect("seen");
            // The x arrow's tip, on screen: about ARROW_POINTS from the centre, foreshortened
            // at most by the view's tilt.
            let tip = view
                .screen(Vec3::new(10.0 + g.length, 10.0, 1.0))
                .expect("seen");
            let points = (tip - centre).length();
            println!("pitch {pitch}: arrow {} m, {points} points", g.length);
            assert!(
                points > 0.3 * ARROW_POINTS && points < 1.5 * ARROW_POINTS,
                "pitch {pitch}: {points} points"
            );
        }
    }
}
