// Schedules in the patch table (level::Schedule, sim::forcing), for the passes that bind the
// table as `patches`: the forcing pass (scheduled sources and sinks) and the structures pass
// (gate openings). The runtime prepends this file to theirs.

// The value of the schedule at `at` `ahead` seconds from now (sim::forcing: Schedule::at,
// straight lines between points, held at the ends, time wrapped by the period); the passes ask
// for the sub-step's middle.
fn scheduled(at: u32, ahead: f32) -> f32 {
    let n = patches[at];
    let period = bitcast<f32>(patches[at + 1u]);
    let base = vec2<f32>(bitcast<f32>(patches[at + 2u]), bitcast<f32>(patches[at + 3u]));
    let now = df_add(df_add(base, vec2<f32>(aux.ctl.time_hi, aux.ctl.time_lo)), vec2<f32>(ahead, 0.0));
    var t = now.x + now.y;
    if (period > 0.0) {
        t = t - period * floor(t / period);
    }
    let p0 = at + 4u;
    if (t <= bitcast<f32>(patches[p0])) {
        return bitcast<f32>(patches[p0 + 1u]);
    }
    for (var i = 1u; i < n; i = i + 1u) {
        let t1 = bitcast<f32>(patches[p0 + 2u * i]);
        if (t < t1) {
            let t0 = bitcast<f32>(patches[p0 + 2u * i - 2u]);
            let v0 = bitcast<f32>(patches[p0 + 2u * i - 1u]);
            let v1 = bitcast<f32>(patches[p0 + 2u * i + 1u]);
            if (t1 > t0) {
                return v0 + (v1 - v0) * ((t - t0) / (t1 - t0));
            }
            return v1;
        }
    }
    return bitcast<f32>(patches[p0 + 2u * n - 1u]);
}

