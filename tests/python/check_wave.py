"""Run by tests/tests/cli.rs under `vsvk python`: `vsvk pipe -c wav|w64|none` writes the samples the
core returns. ffmpeg decodes the files, and its samples must equal the frames read through the module.
usage: check_wave.py NOISE_PLUGIN VSVK SCRATCH_DIR"""
import os
import subprocess
import sys

import numpy as np
import vsvk as vs

noise, vsvk_bin, scratch = sys.argv[1:4]
script = os.path.join(scratch, 'audio.vpy')
with open(script, 'w') as f:
    f.write('import vapoursynth as vs\ncore = vs.core\ncore.std.LoadPlugin(noise)\n'
            'core.vsvknoise.NoiseAudio(length=7000, channels=int(layout), bits=int(bits), float=int(fl), seed=3,'
            ' samplerate=44100).set_output()\n')

core = vs.core
core.std.LoadPlugin(noise)
FL, FR, FC, LFE = 1, 2, 4, 8
cases = [(16, 0, FL), (24, 0, FL | FR | LFE), (32, 0, FL | FR), (32, 1, FL | FR | FC | LFE)]
for bits, fl, layout in cases:
    clip = core.vsvknoise.NoiseAudio(length=7000, channels=layout, bits=bits, float=fl, seed=3, samplerate=44100)
    chans = bin(layout).count('1')
    # the core's samples, interleaved, one row per sample
    want = np.concatenate([np.stack([np.asarray(fr[c]) for c in range(chans)], axis=1) for fr in clip.frames()])
    assert want.shape == (7000, chans), want.shape
    if not fl:
        # the module describes integer audio as unsigned, as R81's does: the samples are signed
        want = want.view({2: np.int16, 4: np.int32}[want.itemsize])
    for container in ('wav', 'w64', 'none'):
        out = os.path.join(scratch, f'a{bits}{fl}.{container}')
        r = subprocess.run([vsvk_bin, 'pipe', '-c', container, '-a', f'noise={noise}', '-a', f'bits={bits}',
                            '-a', f'fl={fl}', '-a', f'layout={layout}', script, out], capture_output=True, text=True)
        assert r.returncode == 0, (container, r.stderr)
        data = open(out, 'rb').read()
        if container == 'none':
            if bits == 24:   # packed: each sample's 3 low bytes
                b = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.int32)
                got = ((b[:, 0] | b[:, 1] << 8 | b[:, 2] << 16) << 8 >> 8).reshape(7000, chans)
            else:
                got = np.frombuffer(data, want.dtype).reshape(7000, chans)
            assert np.array_equal(got, want), (bits, fl, container)
            continue
        fmt = 'f32le' if fl else {16: 's16le', 24: 's32le', 32: 's32le'}[bits]
        probe = subprocess.run(['ffprobe', '-v', 'error', '-show_entries',
                                'stream=codec_name,channels,sample_rate,channel_layout,duration_ts', '-of', 'csv=p=0', out],
                               capture_output=True, text=True)
        assert probe.returncode == 0, probe.stderr
        codec = 'pcm_f32le' if fl else f'pcm_s{bits}le'
        layout_name = {FL: 'mono', FL | FR: 'stereo', FL | FR | LFE: '2.1', FL | FR | FC | LFE: '3.1'}[layout]
        # ffprobe names a front-left-only WAVE mask by its channel
        layout_name = '1 channels (FL)' if layout == FL else layout_name
        assert probe.stdout.strip().split(',')[:5] == [codec, '44100', str(chans), layout_name, '7000'], (container, probe.stdout)
        dec = subprocess.run(['ffmpeg', '-v', 'error', '-i', out, '-f', fmt, '-'], capture_output=True)
        assert dec.returncode == 0, dec.stderr
        got = np.frombuffer(dec.stdout, np.float32 if fl else (np.int16 if bits == 16 else np.int32)).reshape(-1, chans)
        if bits == 24:
            got = got >> 8   # ffmpeg widens 24-bit samples to the top of 32
        assert got.shape == want.shape, (container, bits, got.shape)
        assert np.array_equal(got, want), (container, bits, fl)
    print(f'ok {bits}-bit {"float" if fl else "int"} {chans} channels: wav, w64 and raw')

# refusals: video in wav, a layout WAVE has no bits for
r = subprocess.run([vsvk_bin, 'pipe', '-c', 'wav', '-a', f'noise={noise}', '-a', 'bits=16', '-a', 'fl=0',
                    '-a', f'layout={1 << 30 | 1}', script, os.path.join(scratch, 'x.wav')], capture_output=True, text=True)
assert r.returncode != 0 and 'channel layout' in r.stderr, r.stderr
print('ok refusals')
