//! vsvk: a VapourSynth API 4.3 compatible frame server core.
