//! Bodies that stay calm and in the level: dropped into water they slow down rather than fly
//! off (drag and lift capped per step, at every body step and at the preview's coarser ones),
//! every asset at densities from cork to steel settles, the map's edges wall the bodies in
//! where they wall the water in and let them go over an open edge, and a floater knocked out
//! of the water or put back with its water makes or moves none it should not.

use spillway::body::world::{BodyId, BodyWorld};
use spillway::level::Level;
use spillway::{Grid, Simulation};

use super::coupled::{crowded_river, lake, mesh, run};
use super::{assert_poses_finite, body, crowded_river_level};

/// The fastest body of `world`, m/s.
pub(super) fn fastest(world: &BodyWorld) -> f32 {
    world
        .ids()
        .into_iter()
        .filter_map(|id| world.velocity(id))
        .map(|v| v.iter().map(|c| c * c).sum::<f32>().sqrt())
        .fold(0.0, f32::max)
}

#[test]
fn bodies_dropped_into_water_are_slowed_not_flung_at_every_body_step() {
    // The crowd falls from up to 4 m above the water: at most 8.9 m/s when it lands. Light,
    // flat bodies (planks of 15 kg) took more drag in a step than stops them and were flung
    // off at 400 m/s, at 1/60 s steps and more so at the preview's coarser ones.
    for water_steps in [1, 5] {
        let (mut sim, mut world) = crowded_river();
        let dt = sim.params().dt;
        let mut worst = 0.0f32;
        for _ in 0..(3.0 / dt) as usize / water_steps {
            world.step_coarse(&mut sim, dt, water_steps).unwrap();
            worst = worst.max(fastest(&world));
        }
        println!("{water_steps} water steps per body step: fastest body {worst:.2} m/s");
        assert!(
            worst < 12.0,
            "{water_steps} water steps per body step: a body reached {worst} m/s"
        );
    }
}

#[test]
fn a_body_over_the_edge_of_the_map_is_set_aside_not_left_falling() {
    // The terrain collider ends at the map's border: a crate past it falls with nothing below.
    let mut sim = lake(32, 0.5, 1.0);
    let mut world = BodyWorld::new(&sim);
    let gone = world.add(&body("crate", [-3.0, 8.0, 1.5], 400.0), mesh("crate"));
    let kept = world.add(&body("crate", [8.0, 8.0, 1.5], 400.0), mesh("crate"));
    let start = world.state(gone).unwrap();
    run(&mut world, &mut sim, 5.0);
    let z = world.pose(gone).unwrap().translation[2];
    println!("over the edge: left {:?} at z {z:.2}", world.has_left(gone));
    assert_eq!(world.has_left(gone), Some(true));
    assert_eq!(world.has_left(kept), Some(false));
    assert!(
        (-2.0 - spillway::body::world::FALL_BELOW..-2.0).contains(&z),
        "set aside where it fell: {z}"
    );
    assert_eq!(world.velocity(gone), Some([0.0; 3]));
    // A refused step (a time step of 0) changes nothing: it stays set aside (the rollback
    // brought it back under the map) and the water is as it was.
    let before = sim.depth().to_vec();
    assert!(world.step(&mut sim, 0.0).is_err());
    assert_eq!(world.has_left(gone), Some(true));
    assert_eq!(sim.depth(), &before[..]);
    // A knock or a state that is not finite is refused (rapier froze the body for good).
    let at = world.pose(kept).unwrap().translation;
    assert!(!world.push(kept, [f32::NAN, 0.0, 0.0], at));
    assert!(!world.push(kept, [1.0, 0.0, 0.0], [f32::INFINITY, 0.0, 0.0]));
    let mut lost = world.state(kept).unwrap();
    lost.pose.translation[0] = f32::NAN;
    assert!(!world.set_state(kept, &lost));
    assert!(world.push(kept, [200.0, 0.0, 0.0], at));
    // Five seconds later it is still there (not falling), and the state brings it back.
    run(&mut world, &mut sim, 5.0);
    assert_eq!(world.pose(gone).unwrap().translation[2], z);
    assert!(world.set_state(gone, &start));
    assert_eq!(world.has_left(gone), Some(false));
    let dt = sim.params().dt;
    world.step(&mut sim, dt).unwrap();
    assert!(
        world.pose(gone).unwrap().translation[2] < 1.5,
        "falls again"
    );
    assert!(sim.stats().balance_error.abs() < 1e-6);
}

#[test]
fn bodies_of_every_kind_and_density_settle_without_blowing_up() {
    // Every asset at densities from cork to steel, dropped from 0.5 to 3 m above a lake with a
    // current, coupled at every water step and at the preview's coarser steps.
    let densities = [50.0f32, 200.0, 600.0, 1000.0, 1500.0, 3000.0, 7800.0];
    let kinds = ["crate", "log", "barrel", "plank", "boulder", "cart"];
    for water_steps in [1, 5] {
        let level = crowded_river_level();
        let mut sim = Simulation::new(&level).unwrap();
        let mut world = BodyWorld::new(&sim);
        world.set_edges(&level.boundaries, &level.params.default_boundary);
        let mut k = 0;
        for (a, kind) in kinds.iter().enumerate() {
            for (b, &density) in densities.iter().enumerate() {
                let at = [
                    4.0 + 5.0 * a as f32,
                    4.0 + 4.5 * b as f32,
                    2.0 + 0.5 * (k % 6) as f32,
                ];
                world.add(&body(kind, at, density), mesh(kind));
                k += 1;
            }
        }
        let dt = sim.params().dt;
        let mut worst = 0.0f32;
        for _ in 0..(10.0 / dt) as usize / water_steps {
            world.step_coarse(&mut sim, dt, water_steps).unwrap();
            worst = worst.max(fastest(&world));
            assert_poses_finite(&world);
        }
        let s = sim.stats();
        let left = world
            .ids()
            .into_iter()
            .filter(|&id| world.has_left(id) == Some(true));
        println!(
            "{water_steps} water steps per body step: fastest {worst:.2} m/s, {} left, balance {:.1e}",
            left.count(),
            s.balance_error
        );
        assert!(worst < 10.0, "{water_steps}: a body reached {worst} m/s");
        assert!(s.balance_error.abs() < 1e-6, "balance {}", s.balance_error);
        assert!(sim.depth().iter().all(|d| d.is_finite() && *d >= 0.0));
        let left = world
            .ids()
            .into_iter()
            .filter(|&id| world.has_left(id) == Some(true));
        assert_eq!(left.count(), 0, "no body leaves the walled basin");
    }
}

/// A 16 m square pond (32² cells of 0.5 m, 0.3 m of water) with a boundary of `kind` along the
/// whole of `edge`.
fn pond_with_edge(edge: spillway::level::Edge, kind: spillway::level::BoundaryKind) -> Level {
    let n = 32;
    let mut level = Level::flat(n, n, 0.5, 0.0);
    level.water = Grid::filled(n, n, 0.3);
    level.boundaries.push(spillway::level::Boundary {
        edge,
        start: 0,
        end: n as u32,
        kind,
    });
    level
}

/// A 2000 kg/m³ crate at `at` sliding at `v` (m/s, horizontal): knocked at its centre (a
/// state set would say the pond's water already holds it).
fn slid_crate(world: &mut BodyWorld, at: [f32; 2], v: [f32; 2]) -> BodyId {
    let id = world.add(&body("crate", [at[0], at[1], 0.5], 2000.0), mesh("crate"));
    let m = world.mass(id).unwrap();
    assert!(world.push(id, [m * v[0], m * v[1], 0.0], [at[0], at[1], 0.5]));
    id
}

#[test]
fn bodies_stay_in_at_a_walled_edge_and_leave_over_an_open_one() {
    use spillway::level::{BoundaryKind, Edge};
    let level = pond_with_edge(Edge::East, BoundaryKind::Open);
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    world.set_edges(&level.boundaries, &level.params.default_boundary);
    // Two crates slid at 6 m/s along the bed, 1 m from the west wall and the open east edge.
    let west = slid_crate(&mut world, [1.5, 8.0], [-6.0, 0.0]);
    let east = slid_crate(&mut world, [14.5, 8.0], [6.0, 0.0]);
    run(&mut world, &mut sim, 4.0);
    let at = |id| world.pose(id).unwrap().translation;
    println!("west crate at {:?}, east crate at {:?}", at(west), at(east));
    assert_eq!(world.has_left(west), Some(false));
    assert!(
        at(west)[0] > 0.45 && at(west)[2] > 0.0,
        "held by the wall: {:?}",
        at(west)
    );
    assert_eq!(
        world.has_left(east),
        Some(true),
        "over the open edge: {:?}",
        at(east)
    );
}

#[test]
fn an_open_default_edge_lets_bodies_out_where_no_wall_is_laid_over_it() {
    // The level's default boundary is open; only the west edge is walled. A crate slid west
    // stops at the wall, one slid east leaves, and one slid into the south-west corner (walled
    // on its west side only) leaves over the open south edge.
    use spillway::level::{BoundaryKind, Edge};
    let mut level = pond_with_edge(Edge::West, BoundaryKind::Wall);
    level.params.default_boundary = BoundaryKind::Open;
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    world.set_edges(&level.boundaries, &level.params.default_boundary);
    let west = slid_crate(&mut world, [1.5, 8.0], [-6.0, 0.0]);
    let east = slid_crate(&mut world, [14.5, 8.0], [6.0, 0.0]);
    let corner = slid_crate(&mut world, [1.5, 15.0], [-4.0, 8.0]);
    run(&mut world, &mut sim, 4.0);
    let at = |id| world.pose(id).unwrap().translation;
    println!(
        "west {:?}, east {:?}, corner {:?}",
        at(west),
        at(east),
        at(corner)
    );
    assert_eq!(world.has_left(west), Some(false), "{:?}", at(west));
    assert!(at(west)[0] > 0.45, "held by the wall: {:?}", at(west));
    assert_eq!(world.has_left(east), Some(true), "{:?}", at(east));
    assert_eq!(world.has_left(corner), Some(true), "{:?}", at(corner));
    assert!(
        at(corner)[0] > 0.45,
        "held by the west wall as it left: {:?}",
        at(corner)
    );
}

/// A lake 1 m deep on the west half of a 24 m square of 0.25 m cells, dry ground 3 m up on
/// the east half (the bank at x = 12 m).
fn shore() -> Simulation {
    let n = 96;
    let mut level = Level::flat(n, n, 0.25, 0.0);
    level.terrain = Grid::from_fn(n, n, |x, _| if x < 48 { 0.0 } else { 3.0 });
    level.water = Grid::from_fn(n, n, |x, _| if x < 48 { 1.0 } else { 0.0 });
    Simulation::new(&level).unwrap()
}

#[test]
fn a_floater_knocked_out_of_the_water_gives_back_no_water_the_shore_does_not_hold() {
    // A lake 1 m deep on the west half, dry ground 3 m up on the east half. A crate floating
    // by the shore pushes its water aside; knocked up out of the water, that water comes back
    // under where it floated from the ring around, each cell giving no more than it holds
    // (equal shares took the dry ring cells below dry: the solver made that water).
    let mut sim = shore();
    let lake = sim.volume();
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("crate", [11.2, 12.0, 1.2], 600.0), mesh("crate"));
    run(&mut world, &mut sim, 3.0);
    let floating = world.water_forces(id).expect("coupled").submerged_fraction;
    assert!(floating > 0.3, "the crate floats, {floating} under water");
    // Knocked up out of the water (a player's kick), it rises clear within a few steps.
    let at = world.pose(id).expect("in the world").translation;
    assert!(world.push(id, [0.0, 0.0, 8000.0], at));
    run(&mut world, &mut sim, 0.3);
    let now = sim.volume();
    println!("lake {lake:.4} m³, after {now:.4} m³");
    assert!(
        (now - lake).abs() < 1e-3,
        "water made or lost: {} m³",
        now - lake
    );
}

/// The largest change of depth one coupled step of `world` makes in `sim`, metres.
fn first_step_change(world: &mut BodyWorld, sim: &mut Simulation) -> f32 {
    let before = sim.depth().to_vec();
    let dt = sim.params().dt;
    world.step(sim, dt).expect("a step");
    let moved = (sim.depth().iter().zip(&before))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("largest change of depth in the first step: {moved:.4} m");
    moved
}

#[test]
fn a_floater_put_back_with_its_water_moves_no_water() {
    // A moment restored (the editor's rewind): the water as it was, a new world, the floater's
    // state set. Its first step pushed its whole submerged volume aside again.
    let mut sim = lake(96, 0.25, 2.0);
    let mut world = BodyWorld::new(&sim);
    let placed = body("crate", [12.0, 12.0, 2.6], 500.0);
    let id = world.add(&placed, mesh("crate"));
    run(&mut world, &mut sim, 10.0);
    let state = world.state(id).expect("in the world");
    let mut again = BodyWorld::new(&sim);
    let id2 = again.add(&placed, mesh("crate"));
    assert!(again.set_state(id2, &state));
    let moved = first_step_change(&mut again, &mut sim);
    assert!(moved < 0.02, "{moved} m");
}

/// The largest change of depth in the first step after a lake `n` cells a side, 2 m deep on
/// 0.25 m cells, with a crate of `density` placed at `at`, is run for `seconds`, baked with
/// the crate where it rests, and loaded again (as a game or `spillway sim` loads it).
fn first_step_after_a_bake(n: usize, at: [f32; 3], density: f32, seconds: f32) -> f32 {
    let mut level = Level::flat(n, n, 0.25, 0.0);
    level.water = Grid::filled(n, n, 2.0);
    level.bodies.push(body("crate", at, density));
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::from_meshes(&level, &sim, vec![mesh("crate")]);
    run(&mut world, &mut sim, seconds);
    let mut baked = sim.bake_into(&level);
    world.keep_poses(&mut baked);
    let mut loaded = Simulation::new(&baked).unwrap();
    let mut again = BodyWorld::from_meshes(&baked, &loaded, vec![mesh("crate")]);
    first_step_change(&mut again, &mut loaded)
}

#[test]
fn a_floater_loaded_with_its_baked_water_moves_no_water() {
    // A bake saves the water with the floater settled in it and the floater where it rests; a
    // game or `spillway sim` loading it made a world whose first step pushed the floater's
    // whole submerged volume aside again.
    let moved = first_step_after_a_bake(96, [12.0, 12.0, 2.6], 500.0, 10.0);
    assert!(moved < 0.02, "{moved} m");
}

#[test]
fn a_save_game_puts_a_pushed_floater_back_where_it_was() {
    // The save-game recipe (bake, save, load) put every body back at its placement, in water
    // shaped around where it had drifted to.
    let n = 64;
    let mut level = Level::flat(n, n, 0.5, 0.0);
    level.water = Grid::filled(n, n, 2.0);
    level.bodies.push(body("crate", [8.0, 16.0, 2.3], 500.0));
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::from_meshes(&level, &sim, vec![mesh("crate")]);
    assert!(world.push(BodyId(0), [6000.0, 0.0, 0.0], [8.0, 16.0, 2.3]));
    run(&mut world, &mut sim, 4.0);
    let there = world.pose(BodyId(0)).expect("in the world").translation;
    assert!(there[0] > 9.0, "pushed east: {there:?}");
    let mut baked = sim.bake_into(&level);
    world.keep_poses(&mut baked);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("save.ron");
    spillway::level::file::save(&baked, &path).expect("save");
    let loaded = spillway::level::file::load(&path).expect("load");
    let sim = Simulation::new(&loaded).unwrap();
    let again = BodyWorld::from_meshes(&loaded, &sim, vec![mesh("crate")]);
    let back = again.pose(BodyId(0)).expect("loaded").translation;
    println!("saved at {there:?}, loaded at {back:?}");
    let apart = (0..3)
        .map(|a| (back[a] - there[a]).abs())
        .fold(0.0, f32::max);
    assert!(apart < 1e-3, "{apart} m");
}

#[test]
fn damping_slows_a_body_for_any_length_of_step() {
    // A crate as heavy as water, under 1.5 m of it, set rising at 1 m/s and stepped a second at a
    // time: damping applied as −λ·m·v over a step longer than 1/λ reversed the velocity, and
    // one longer than 2/λ made it grow.
    let n = 16;
    let mut level = Level::flat(n, n, 1.0, 0.0);
    level.water = Grid::filled(n, n, 3.0);
    level.params.dt = 1.0;
    let mut sim = Simulation::new(&level).unwrap();
    let mut world = BodyWorld::new(&sim);
    let id = world.add(&body("crate", [8.0, 8.0, 1.0], 1000.0), mesh("crate"));
    let mut state = world.state(id).unwrap();
    state.linear = [0.0, 0.0, 1.0];
    world.set_state(id, &state);
    let mut last = 1.0f32;
    for step in 0..4 {
        world.step(&mut sim, 1.0).unwrap();
        let v = world.state(id).unwrap().linear[2];
        println!("after step {step}: {v:.4} m/s up");
        assert!(
            v.is_finite() && v.abs() <= last.abs() + 1e-3,
            "{v} after {last}"
        );
        last = v;
    }
}

#[test]
fn a_floater_against_a_high_bank_floats_at_its_draft() {
    // The surface under a floater was the mean of every wet cell around it, the bank's too:
    // water it pushed onto the dry bank 3 m up counted as surface, and the crate rode high.
    let mut sim = shore();
    let mut world = BodyWorld::new(&sim);
    // A 1 m crate of 600 kg/m³ against the bank (x = 12 m): 0.6 m under water at rest.
    let id = world.add(&body("crate", [11.5, 12.0, 1.0], 600.0), mesh("crate"));
    run(&mut world, &mut sim, 6.0);
    let z = world.pose(id).expect("in the world").translation[2];
    let under = world.water_forces(id).expect("coupled").submerged_fraction;
    let bank: f32 = (sim.depth().iter().enumerate())
        .filter(|(k, _)| k % 96 >= 48)
        .map(|(_, d)| d * 0.25 * 0.25)
        .sum();
    println!(
        "crate centre at z = {z:.3} m (0.9 at its draft), {under:.2} under water; {bank:.4} m³ on the bank"
    );
    assert!((z - 0.9).abs() < 0.08, "the crate floats at z = {z}");
    assert!(bank < 1e-3, "{bank} m³ pushed onto the bank");
}

#[test]
fn a_blocker_loaded_with_its_baked_water_moves_no_water() {
    // A heavy crate under 2 m of water, baked and loaded: the blocker's cells were taken as
    // new, the water standing on the crate held out of the flow and the surface over it seeded
    // a metre low, so the lake poured onto it (0.115 m in the first step).
    let moved = first_step_after_a_bake(64, [8.0, 8.0, 0.5], 2600.0, 20.0);
    assert!(moved < 0.02, "{moved} m");
}
