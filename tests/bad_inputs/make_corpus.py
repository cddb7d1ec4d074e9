#!/usr/bin/env python3
"""Writes the bad-input corpus (run from anywhere; rewrites its cases in tests/bad_inputs/{levels,heightmaps,gltf}).

Every case is a real, small file. Beside each case, `expect` (levels, glTF: a file in the
case folder) or `NAME.expect` (heightmaps) lists, one per line, text the error must contain:
the file name, the place and the reason. Runners: tests/cli/bad_inputs.rs (levels through
`spillway check`, heightmaps through `spillway import --terrain`) and tests/bad_inputs/gltf.rs
(glTF through `spillway::body::import`). Fuzz-found crashes live in `fuzz_regressions/`.
Three level cases were written by hand and are not made here (`cell_size_1e-30`,
`fixed_level_at_1e38`, `gravity_1e30`): a run rewrites only its own cases and leaves them.
"""
import json, os, shutil, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def f32s(values):
    return b"".join(struct.pack("<f", v) for v in values)


def sidecar(grids):
    blob = b"SPWGRID1"
    refs = []
    for g in grids:
        b = f32s(g)
        refs.append((len(blob), len(b), zlib.crc32(b)))
        blob += b
    return blob, refs


def gref(name, r):
    o, l, c = r
    return f'(file: "{name}", offset: {o}, len: {l}, crc32: {c}, encoding: F32Le)'


def level_text(version=2, nx=4, ny=3, terrain=None, water=None, name="level.grids",
               refs=None, extra="", cell_size="1.0", params="", nx_text=None, ny_text=None):
    return f"""(
    format_version: {version},
    name: "bad input",
    cell_size: {cell_size},
    size: (nx: {nx_text or nx}, ny: {ny_text or ny}),
    params: ({params}),{extra}
    terrain: {terrain or gref(name, refs[0])},
    water: {water or gref(name, refs[1])},
)
"""


def level_case(case, text, grids=None, expect=(), sidecar_name="level.grids", raw_sidecar=None):
    d = os.path.join(HERE, "levels", case)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(os.path.join(d, "level.ron"), mode) as f:
        f.write(text)
    if raw_sidecar is not None:
        with open(os.path.join(d, sidecar_name), "wb") as f:
            f.write(raw_sidecar)
    with open(os.path.join(d, "expect"), "w") as f:
        f.write("\n".join(["level.ron", *expect]) + "\n")


def levels():
    nx, ny = 4, 3
    terrain = [0.1 * i for i in range(nx * ny)]
    water = [0.5] * (nx * ny)
    blob, refs = sidecar([terrain, water])
    good = level_text(refs=refs)
    level_case("truncated_ron", good[: len(good) // 2], expect=["level.ron:7:", "Expected"],
               raw_sidecar=blob)
    level_case("corrupt_bytes", good[:60].encode() + b"\xff\xfe\x00\x13garbage" + good[70:].encode(),
               expect=["level.ron:", "not UTF-8"], raw_sidecar=blob)
    level_case("empty_file", "", expect=["level.ron:1:1:", "Expected"])
    level_case("version_99", good.replace("format_version: 2", "format_version: 99"),
               expect=["format_version 99", "up to 3"], raw_sidecar=blob)
    level_case("version_0", good.replace("format_version: 2", "format_version: 0"),
               expect=["`format_version`", "0"], raw_sidecar=blob)
    level_case("version_negative", good.replace("format_version: 2", "format_version: -1"),
               expect=[":2:"], raw_sidecar=blob)
    level_case("nan_cell_size", level_text(refs=refs, cell_size="NaN"),
               expect=["`cell_size`", "NaN"], raw_sidecar=blob)
    level_case("infinite_gravity", level_text(refs=refs, params="gravity: inf"),
               expect=["`params.gravity`", "inf"], raw_sidecar=blob)
    level_case("negative_dt", level_text(refs=refs, params="dt: -0.02"),
               expect=["`params.dt`", "-0.02"], raw_sidecar=blob)
    level_case("negative_size", level_text(refs=refs, nx_text="-4"),
               expect=["level.ron:5:", "out of bounds"], raw_sidecar=blob)
    level_case("enormous_size", level_text(refs=refs, nx_text="4294967296", ny_text="4294967296"),
               expect=["`size", "limit"], raw_sidecar=blob)
    level_case("size_overflows_u64", level_text(refs=refs, nx_text="18446744073709551616"),
               expect=["level.ron:5:", "out of bounds"], raw_sidecar=blob)
    level_case("zero_size", level_text(refs=refs, nx_text="0", ny_text="0"),
               expect=["`size"], raw_sidecar=blob)
    huge = level_text(refs=refs).replace(f"len: {refs[0][1]}", "len: 18446744073709551615", 1)
    level_case("enormous_grid_length", huge, expect=["`terrain`", "length"], raw_sidecar=blob)
    off = level_text(refs=refs).replace("offset: 8,", "offset: 18446744073709551615,", 1)
    level_case("offset_past_the_end", off, expect=["`terrain`", "truncated"], raw_sidecar=blob)
    bad_crc = level_text(refs=refs).replace(f"crc32: {refs[1][2]}", f"crc32: {refs[1][2] ^ 1}")
    level_case("wrong_checksum", bad_crc, expect=["`water`", "checksum"], raw_sidecar=blob)
    wl = level_text(refs=refs).replace(f"len: {refs[1][1]}", f"len: {refs[1][1] - 4}", 1)
    level_case("wrong_length", wl, expect=["`terrain`", "length is 44 bytes", "needs 48"], raw_sidecar=blob)
    level_case("truncated_sidecar", good, expect=["`water`", "truncated"], raw_sidecar=blob[:-10])
    level_case("missing_sidecar", good, expect=["`terrain`", "missing"])
    level_case("bad_magic", good, expect=["`terrain`", "magic"], raw_sidecar=b"NOTGRID1" + blob[8:])
    level_case("empty_sidecar", good, expect=["`terrain`", "magic"], raw_sidecar=b"")
    for case, name in [("sidecar_dotdot", "../../etc/passwd"), ("sidecar_absolute", "/etc/passwd"),
                       ("sidecar_backslash", "..\\\\..\\\\x.grids")]:
        level_case(case, level_text(refs=refs, name=name), expect=["`terrain`", "folder"],
                   raw_sidecar=blob)
    nan_blob, nan_refs = sidecar([terrain[:5] + [float("nan")] + terrain[6:], water])
    level_case("nan_in_terrain", level_text(refs=nan_refs), expect=["terrain(x=1, y=1)", "NaN"],
               raw_sidecar=nan_blob)
    inf_blob, inf_refs = sidecar([terrain, water[:11] + [float("inf")]])
    level_case("infinite_depth", level_text(refs=inf_refs), expect=["water(x=3, y=2)", "inf"],
               raw_sidecar=inf_blob)
    neg_blob, neg_refs = sidecar([terrain, [-1.0] + water[1:]])
    level_case("negative_depth", level_text(refs=neg_refs), expect=["water(x=0, y=0)", "negative"],
               raw_sidecar=neg_blob)
    src = """
    sources: [(name: "s", shape: Circle(x: 1.0, y: 1.0, radius: NaN), kind: Rate(m3_per_s: 1.0))],"""
    level_case("nan_source_radius", level_text(refs=refs, extra=src),
               expect=["sources[0].shape.radius", "NaN"], raw_sidecar=blob)
    # A misspelt key anywhere is refused by name, not left to its default.
    level_case("misspelt_param", level_text(refs=refs, params="gravty: 1.62"),
               expect=["level.ron:6:", "`gravty`", "`gravity`"], raw_sidecar=blob)
    typo = """
    sources: [(name: "s", shape: Point(x: 1.0, y: 1.0), kind: Rate(m3_per_s: 1.0), enabeld: false)],"""
    level_case("misspelt_source_field", level_text(refs=refs, extra=typo),
               expect=["level.ron:7:", "`enabeld`", "`enabled`"], raw_sidecar=blob)
    body = """
    bodies: [(name: "b", gltf: "/etc/passwd", translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0), scale: (1.0, 1.0, 1.0), density: 500.0, dynamic: true)],"""
    level_case("body_gltf_outside", level_text(refs=refs, extra=body),
               expect=["bodies[0].gltf"], raw_sidecar=blob)
    # Body files that a game cannot load: `spillway check` loads each one as the game would.
    def body_file(gltf):
        return f"""
    bodies: [(name: "b", gltf: "{gltf}", translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0), scale: (1.0, 1.0, 1.0), density: 500.0, dynamic: true)],"""
    level_case("body_file_missing", level_text(refs=refs, extra=body_file("bodies/gone.glb")),
               expect=["bodies[0] (b)", "bodies/gone.glb", "cannot read it"], raw_sidecar=blob)
    level_case("body_file_dotdot", level_text(refs=refs, extra=body_file("../level.ron")),
               expect=["bodies[0] (b)", "`../level.ron` points outside the level's folder"],
               raw_sidecar=blob)
    level_case("body_file_not_gltf", level_text(refs=refs, extra=body_file("level.grids")),
               expect=["bodies[0] (b)", "level.grids", "broken glTF"], raw_sidecar=blob)
    gate = """
    gates: [(name: "g", shape: Box(x0: 0.0, y0: 0.0, x1: 1e39, y1: 1.0), crest: 1.0)],"""
    level_case("gate_infinite_box", level_text(refs=refs, extra=gate),
               expect=["gates[0].shape.x1"], raw_sidecar=blob)
    fblob, frefs = sidecar([terrain, water, [0.0] * ((nx + 1) * ny), [0.0] * (nx * (ny + 1) - 1)])
    flow = f"""
    flow: Some((solver: Pipes, time: 1.0, ghost: [], flow_x: {gref("level.grids", frefs[2])}, flow_y: {gref("level.grids", frefs[3])})),"""
    level_case("flow_wrong_length", level_text(refs=frefs, extra=flow),
               expect=["`flow.flow_y`", "length"], raw_sidecar=fblob)
    flow_t = f"""
    flow: Some((solver: Pipes, time: -inf, ghost: [], flow_x: {gref("level.grids", frefs[2])}, flow_y: {gref("level.grids", frefs[2])})),"""
    level_case("v1_with_v2_field", level_text(version=1, refs=refs, extra="\n    flow: None, max_speed: Some(1.0),"),
               expect=["max_speed"], raw_sidecar=blob)
    level_case("deep_nesting", "(format_version: 2, name: " + "[" * 5000 + ")",
               expect=["level.ron:1:", "nested too deeply"])
    level_case("not_utf8", b"\xff\xfe\xfd" * 100, expect=["level.ron:1:1:", "not UTF-8"])
    _ = flow_t


def png(w, h, bit_depth, color_type, raw_rows, palette=None, bad_crc=False, cut=None):
    def chunk(kind, data):
        c = zlib.crc32(kind + data)
        if bad_crc and kind == b"IDAT":
            c ^= 1
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", c)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0))
    if palette is not None:
        out += chunk(b"PLTE", palette)
    out += chunk(b"IDAT", zlib.compress(raw_rows, 9)) + chunk(b"IEND", b"")
    return out[:cut] if cut else out


def heightmap(name, data, expect):
    d = os.path.join(HERE, "heightmaps")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    with open(os.path.join(d, name + ".expect"), "w") as f:
        f.write("\n".join([name, *expect]) + "\n")


def npy(descr, shape, payload, fortran=False, header=None):
    h = header or "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    h = h + " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + payload


def heightmaps():
    rows = lambda w, h, bpr: b"".join(b"\x00" + bytes(bpr) for _ in range(h))
    heightmap("gray_1bit.png", png(8, 8, 1, 0, rows(8, 8, 1)), ["1-bit grayscale", "8- or 16-bit grayscale"])
    heightmap("gray_2bit.png", png(8, 8, 2, 0, rows(8, 8, 2)), ["2-bit grayscale"])
    heightmap("gray_4bit.png", png(8, 8, 4, 0, rows(8, 8, 4)), ["4-bit grayscale"])
    heightmap("palette.png", png(8, 8, 8, 3, rows(8, 8, 8), palette=bytes(range(48))),
              ["palette", "8- or 16-bit grayscale"])
    heightmap("rgba_16bit.png", png(4, 4, 16, 6, rows(4, 4, 32)), ["8- or 16-bit grayscale"])
    heightmap("zero_size.png", png(0, 0, 8, 0, b""), ["PNG"])
    heightmap("huge_declared.png", png(1_000_000, 1_000_000, 16, 0, rows(1, 1, 2)), ["pixels"])
    heightmap("over_level_limit.png", png(16384, 16384, 16, 0, rows(1, 1, 2)), ["16384 × 16384", "cells"])
    heightmap("one_pixel.png", png(1, 1, 8, 0, rows(1, 1, 1)), ["1 × 1"])
    heightmap("truncated.png", png(8, 8, 8, 0, rows(8, 8, 8), cut=40), ["PNG"])
    heightmap("bad_crc.png", png(8, 8, 8, 0, rows(8, 8, 8), bad_crc=True), ["PNG"])
    heightmap("truncated_data.png", png(64, 64, 8, 0, rows(64, 8, 64)), ["PNG"])
    heightmap("magic_only.png", b"\x89PNG\r\n\x1a\n", ["PNG"])
    f32 = lambda n: f32s([0.0] * n)
    heightmap("bad_header.npy", b"\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'shape': (2,2\n" + f32(4), ["header"])
    heightmap("wrong_dtype.npy", npy("<i8", "(2, 2)", bytes(32)), ["<i8"])
    heightmap("bool_dtype.npy", npy("|b1", "(2, 2)", bytes(4)), ["|b1"])
    heightmap("shape_mismatch.npy", npy("<f4", "(100, 100)", f32(10)), ["100"])
    heightmap("huge_shape.npy", npy("<f4", "(1000000000, 1000000000)", f32(4)), ["1000000000"])
    heightmap("shape_overflow.npy", npy("<f4", "(18446744073709551615, 18446744073709551615)", f32(4)), ["shape"])
    heightmap("three_dims.npy", npy("<f4", "(2, 2, 2)", f32(8)), ["3 dimensions"])
    heightmap("fortran.npy", npy("<f4", "(2, 2)", f32(4), fortran=True), ["fortran"])
    heightmap("header_past_end.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr'", ["header"])
    heightmap("magic_only.npy", b"\x93NUMPY", ["truncated", "preamble"])
    heightmap("nan_values.npy", npy("<f4", "(2, 3)", f32s([0.0, float("nan"), 0, 0, 0, 0])), ["NaN"])
    heightmap("not_a_heightmap.txt", b"hello, world\n", ["neither"])


def gltf_case(case, doc, files=None, expect=(), name="body.gltf"):
    d = os.path.join(HERE, "gltf", case)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, name), "wb") as f:
        f.write(doc if isinstance(doc, bytes) else json.dumps(doc, indent=1).encode())
    for fname, data in (files or {}).items():
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    with open(os.path.join(d, "expect"), "w") as f:
        f.write("\n".join([name, *expect]) + "\n")


def gltf_doc(uri, count=3, byte_length=36, index_count=None):
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"uri": uri, "byteLength": byte_length}] if uri is not None else [{"byteLength": byte_length}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": byte_length}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    }
    return doc


def gltfs():
    tri = f32s([0, 0, 0, 1, 0, 0, 0, 1, 0])
    gltf_case("missing_buffer", gltf_doc("tri.bin"), expect=["buffer"])
    gltf_case("uri_dotdot", gltf_doc("../../etc/passwd"), expect=["outside"])
    gltf_case("uri_absolute", gltf_doc("/etc/passwd"), expect=["outside"])
    gltf_case("uri_file_scheme", gltf_doc("file:///etc/passwd"), expect=["file:///etc/passwd"])
    gltf_case("uri_percent_dotdot", gltf_doc("%2e%2e/%2e%2e/etc/passwd"), expect=["buffer"])
    gltf_case("data_uri_bad_base64", gltf_doc("data:application/octet-stream;base64,@@@@!!"), expect=["buffer"])
    gltf_case("data_uri_no_comma", gltf_doc("data:application/octet-stream;base64"), expect=["buffer"])
    gltf_case("data_uri_too_short", gltf_doc("data:application/octet-stream;base64,AAAA"), expect=["buffer"])
    gltf_case("huge_vertex_count", gltf_doc("tri.bin", count=4_000_000_000), files={"tri.bin": tri},
              expect=["vertices"])
    gltf_case("accessor_past_buffer", gltf_doc("tri.bin", count=300), files={"tri.bin": tri},
              expect=["glTF"])
    gltf_case("huge_byte_length", gltf_doc("tri.bin", byte_length=2**62), files={"tri.bin": tri},
              expect=["buffer"])
    gltf_case("glb_without_bin", gltf_doc(None), expect=["buffer"], name="body.gltf")
    gltf_case("not_json", b"{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [", expect=["glTF"])
    glb = b"glTF" + struct.pack("<II", 2, 1 << 30) + struct.pack("<I", 12) + b"JSON" + b"{}" * 6
    gltf_case("glb_length_lies", glb, expect=["glTF"], name="body.glb")
    gltf_case("glb_truncated", b"glTF\x02\x00\x00\x00", expect=["glTF"], name="body.glb")
    # Nodes shared between parents: a chain of them places the mesh 2^depth times.
    dag = gltf_doc("tri.bin")
    dag["nodes"] = [{"children": [1, 2]}, {"children": [3]}, {"children": [3]}, {"mesh": 0}]
    gltf_case("node_two_parents", dag, files={"tri.bin": tri},
              expect=["node 3 is a child of both node 1 and node 2"])
    # Transforms that overflow f32: a product of scales, and a finite one that takes a
    # position past f32's range.
    far = gltf_doc("tri.bin")
    far["nodes"] = [{"scale": [1e38, 1, 1], "children": [1]}, {"scale": [1e38, 1, 1], "mesh": 0}]
    gltf_case("transform_overflows", far, files={"tri.bin": tri},
              expect=["node 1: its transform (with its parents') is not finite"])
    past = gltf_doc("tri.bin")
    past["nodes"] = [{"translation": [3e38, 0, 0], "scale": [1e38, 1, 1], "mesh": 0}]
    gltf_case("position_placed_past_f32", past, files={"tri.bin": tri},
              expect=["accessor 0: a position placed by its node's transform is out of range"])
    # One mesh of 3000 triangles placed by 1000 nodes: 3 million, over the 2^21 allowed.
    many = gltf_doc("mesh.bin", byte_length=36 + 9000)
    many["bufferViews"] = [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                           {"buffer": 0, "byteOffset": 36, "byteLength": 9000}]
    many["accessors"].append({"bufferView": 1, "componentType": 5121, "count": 9000, "type": "SCALAR"})
    many["meshes"] = [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}]
    many["nodes"] = [{"children": list(range(1, 1001))}] + [{"mesh": 0}] * 1000
    gltf_case("mesh_placed_too_often", many, files={"mesh.bin": tri + bytes([0, 1, 2]) * 3000},
              expect=["the triangle count of every placed mesh", "the limit is 2097152"])


def main():
    # Each case is written afresh; cases added by hand beside them (the levels named after
    # the values found by review, the fuzzers' finds) stay.
    levels()
    heightmaps()
    gltfs()


if __name__ == "__main__":
    main()
