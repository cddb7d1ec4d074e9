// Dry strips left out (QUIET, included by the flow and pair passes, and by the forcing pass for
// `quiet_stamp`; `gpu::quiet` owns the layout). A strip whose region (its cells and
// QUIET_MARGIN cells around them) held no water in either half of the state would write what its
// output half already holds: no water, no discharge, no velocity, its carries unchanged. Such a
// strip returns at once.
//
// Stamps, two words per block of QB_W × QB_H cells, after the border faces in `aux.faces`: the
// tick (flow or pair dispatch run, counted by the control pass) at which a strip last wrote
// anything but dry ground over the block (or the forcing pass added water there), and the tick
// at which a strip last wrote water there. Both halves hold no water over a block whose first
// stamp is at least two ticks old: its last two dispatches, which wrote both halves, wrote none
// there (a strip left out wrote nothing, and was left out because both halves held none). Every
// writer of a word in one tick writes the same value, and a word read as a neighbour writes it
// is either value, either safe. An upload from the host sets the tick and every stamp to 0, so
// the next two dispatches run every strip.
//
// A strip that ran stamps every block over its cells where a cell it wrote holds water (its
// largest depth, which the pass keeps anyway, is above zero: both words), or where one may
// have held water before the dispatch (a water stamp at most one tick old over its own cells:
// only it writes them; the first word only, so that a strip that held water once does not stamp
// itself for ever). That covers every value it writes: a face with water on neither side is
// limited to 0, a face with water upwind outside the strip gives its downwind cell, inside,
// water, and a carry above zero is left only beside water. The pair pass also counts the water
// its cells hold between its two sub-steps.

// The strip's flags: some thread found water around it (it runs), or a water stamp over its own
// cells at most one tick old (it stamps its blocks when it has run).
var<workgroup> wbusy: u32;
var<workgroup> wown: u32;

const QB_W: u32 = 32u;
const QB_H: u32 = 8u;
// Cells around a strip's own whose water decides whether it runs (the pair pass reads four).
const QUIET_MARGIN: i32 = 6;

// The first stamp word of block (bx, by); its water stamp follows it.
fn quiet_word(bx: u32, by: u32) -> u32 {
    return grid.perimeter + 2u * (by * grid.quiet_cols + bx);
}

// Stamps the block of cell `cell` with water at this tick (the forcing pass, adding water).
fn quiet_stamp(cell: u32) {
    let x = cell % grid.nx;
    let y = cell / grid.nx;
    let w = quiet_word(x / QB_W, y / QB_H);
    let tick = bitcast<f32>(aux.ctl.tick);
    aux.faces[w] = tick;
    aux.faces[w + 1u] = tick;
}

// What thread `t` of `threads` finds in its share of the region of the strip writing columns
// [x0, x1) and rows [y0, y1): QUIET_BUSY where a stamp is too young or a border face carries
// water (the strip must run), QUIET_OWN where a stamp over its own cells is at most one tick
// old (the strip stamps its blocks when it has run).
const QUIET_BUSY: u32 = 1u;
const QUIET_OWN: u32 = 2u;

fn quiet_scan(t: u32, threads: u32, x0: i32, x1: i32, y0: i32, y1: i32) -> u32 {
    if (grid.quiet_on == 0u) {
        return QUIET_BUSY | QUIET_OWN;
    }
    let nx = i32(grid.nx);
    let ny = i32(grid.ny);
    let cx0 = max(x0 - QUIET_MARGIN, 0);
    let cx1 = min(x1 + QUIET_MARGIN, nx);
    let ry0 = max(y0 - QUIET_MARGIN, 0);
    let ry1 = min(y1 + QUIET_MARGIN, ny);
    let bx0 = u32(cx0) / QB_W;
    let by0 = u32(ry0) / QB_H;
    let nbx = u32(cx1 - 1) / QB_W - bx0 + 1u;
    let nby = u32(ry1 - 1) / QB_H - by0 + 1u;
    let tick = aux.ctl.tick;
    // The blocks over the strip's own cells, and those over no other strip's (inner): where it
    // has some, only their water stamps say whether it held water (it stamps every block of its
    // own when it writes water); a neighbour's water in a block they share would keep it
    // stamping that block, and a strip beyond running, for as long as the neighbour holds water.
    let ox0 = u32(x0) / QB_W;
    let ox1 = u32(x1 - 1) / QB_W;
    let oy0 = u32(y0) / QB_H;
    let oy1 = u32(y1 - 1) / QB_H;
    let ix0 = (u32(x0) + QB_W - 1u) / QB_W;
    let ix1 = select(u32(x1) / QB_W, (grid.nx + QB_W - 1u) / QB_W, x1 == nx);
    let iy0 = (u32(y0) + QB_H - 1u) / QB_H;
    let iy1 = select(u32(y1) / QB_H, (grid.ny + QB_H - 1u) / QB_H, y1 == ny);
    let inner = ix0 < ix1 && iy0 < iy1;
    var busy = false;
    var own = false;
    for (var i = t; i < nbx * nby; i = i + threads) {
        let bx = bx0 + i % nbx;
        let by = by0 + i / nbx;
        let w = quiet_word(bx, by);
        let s = bitcast<u32>(aux.faces[w]);
        busy = busy || s + 2u >= tick;
        let mine = select(
            bx >= ox0 && bx <= ox1 && by >= oy0 && by <= oy1,
            bx >= ix0 && bx < ix1 && by >= iy0 && by < iy1,
            inner
        );
        if (mine) {
            own = own || bitcast<u32>(aux.faces[w + 1u]) + 1u >= tick;
        }
    }
    // Border faces: West and East by row, North and South by column.
    for (var r = ry0 + i32(t); r < ry1; r = r + i32(threads)) {
        if (cx0 == 0) {
            busy = busy || aux.faces[u32(r)] != 0.0;
        }
        if (cx1 == nx) {
            busy = busy || aux.faces[grid.ny + u32(r)] != 0.0;
        }
    }
    for (var c = cx0 + i32(t); c < cx1; c = c + i32(threads)) {
        if (ry0 == 0) {
            busy = busy || aux.faces[2u * grid.ny + u32(c)] != 0.0;
        }
        if (ry1 == ny) {
            busy = busy || aux.faces[2u * grid.ny + grid.nx + u32(c)] != 0.0;
        }
    }
    return select(0u, QUIET_BUSY, busy) | select(0u, QUIET_OWN, own);
}

// Thread 0, before the pass's first barrier: clears the strip's flags.
fn quiet_clear() {
    wbusy = 0u;
    wown = 0u;
}

// Whether the strip writing columns [x0, x1) and rows [y0, y1) is left out (every thread calls
// it, in uniform control flow; it counts the strip left out).
fn quiet_leave_out(t: u32, threads: u32, x0: i32, x1: i32, y0: i32, y1: i32) -> bool {
    let found = quiet_scan(t, threads, x0, x1, y0, y1);
    if ((found & QUIET_BUSY) != 0u) {
        wbusy = 1u;
    }
    if ((found & QUIET_OWN) != 0u) {
        wown = 1u;
    }
    if (workgroupUniformLoad(&wbusy) == 0u) {
        if (t == 0u) {
            atomicAdd(&aux.ctl.quiet, 1u);
        }
        return true;
    }
    return false;
}

// After the pass's last barrier, in a strip that ran: stamps its blocks where it wrote water
// (`water`) or may have found some.
fn quiet_ran(t: u32, threads: u32, x0: i32, x1: i32, y0: i32, y1: i32, water: bool) {
    if (water || wown != 0u) {
        quiet_mark(t, threads, x0, x1, y0, y1, water);
    }
}

// Thread `t` of `threads` stamps its share of the blocks over columns [x0, x1) and rows
// [y0, y1) with this tick: the strip wrote something there, with `water` some cell's water.
fn quiet_mark(t: u32, threads: u32, x0: i32, x1: i32, y0: i32, y1: i32, water: bool) {
    let bx0 = u32(x0) / QB_W;
    let by0 = u32(y0) / QB_H;
    let nbx = u32(x1 - 1) / QB_W - bx0 + 1u;
    let nby = u32(y1 - 1) / QB_H - by0 + 1u;
    let tick = bitcast<f32>(aux.ctl.tick);
    for (var i = t; i < nbx * nby; i = i + threads) {
        let w = quiet_word(bx0 + i % nbx, by0 + i / nbx);
        aux.faces[w] = tick;
        if (water) {
            aux.faces[w + 1u] = tick;
        }
    }
}
