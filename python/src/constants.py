# The vsvk module's enumerations and constants, run once in the module's namespace when it is
# imported. `_PRESETS` (preset format name -> id) and `_CHANNELS` (channel name -> position) are
# put there by the Rust side beforehand. Values are the API's (VapourSynth4.h) and, for the colour
# properties, those of ITU-T H.273.
import collections as _collections
import collections.abc as _abc
import enum as _enum
import typing as _typing


class MessageType(_enum.IntFlag):
    MESSAGE_TYPE_DEBUG = 0
    MESSAGE_TYPE_INFORMATION = 1
    MESSAGE_TYPE_WARNING = 2
    MESSAGE_TYPE_CRITICAL = 3
    MESSAGE_TYPE_FATAL = 4


class FilterMode(_enum.IntEnum):
    PARALLEL = 0
    PARALLEL_REQUESTS = 1
    UNORDERED = 2
    FRAME_STATE = 3


class CoreCreationFlags(_enum.IntFlag):
    ENABLE_GRAPH_INSPECTION = 1
    DISABLE_AUTO_LOADING = 2
    DISABLE_LIBRARY_UNLOADING = 4
    ENABLE_FRAME_REF_DEBUG = 8


class MediaType(_enum.IntEnum):
    VIDEO = 1
    AUDIO = 2


class ColorFamily(_enum.IntEnum):
    UNDEFINED = 0
    GRAY = 1
    RGB = 2
    YUV = 3


class SampleType(_enum.IntEnum):
    INTEGER = 0
    FLOAT = 1


# `_Range`'s values (as H.273's video_full_range_flag); the older `_ColorRange` had them swapped
class Range(_enum.IntEnum):
    RANGE_FULL = 1
    RANGE_LIMITED = 0


ColorRange = Range


class ChromaLocation(_enum.IntEnum):
    CHROMA_LEFT = 0
    CHROMA_CENTER = 1
    CHROMA_TOP_LEFT = 2
    CHROMA_TOP = 3
    CHROMA_BOTTOM_LEFT = 4
    CHROMA_BOTTOM = 5


class FieldBased(_enum.IntEnum):
    FIELD_PROGRESSIVE = 0
    FIELD_BOTTOM = 1
    FIELD_TOP = 2


class MatrixCoefficients(_enum.IntEnum):
    MATRIX_RGB = 0
    MATRIX_BT709 = 1
    MATRIX_UNSPECIFIED = 2
    MATRIX_FCC = 4
    MATRIX_BT470_BG = 5
    MATRIX_ST170_M = 6
    MATRIX_ST240_M = 7
    MATRIX_YCGCO = 8
    MATRIX_BT2020_NCL = 9
    MATRIX_BT2020_CL = 10
    MATRIX_CHROMATICITY_DERIVED_NCL = 12
    MATRIX_CHROMATICITY_DERIVED_CL = 13
    MATRIX_ICTCP = 14


class TransferCharacteristics(_enum.IntEnum):
    TRANSFER_BT709 = 1
    TRANSFER_UNSPECIFIED = 2
    TRANSFER_BT470_M = 4
    TRANSFER_BT470_BG = 5
    TRANSFER_BT601 = 6
    TRANSFER_ST240_M = 7
    TRANSFER_LINEAR = 8
    TRANSFER_LOG_100 = 9
    TRANSFER_LOG_316 = 10
    TRANSFER_IEC_61966_2_4 = 11
    TRANSFER_IEC_61966_2_1 = 13
    TRANSFER_BT2020_10 = 14
    TRANSFER_BT2020_12 = 15
    TRANSFER_ST2084 = 16
    TRANSFER_ST428 = 17
    TRANSFER_ARIB_B67 = 18


class ColorPrimaries(_enum.IntEnum):
    PRIMARIES_BT709 = 1
    PRIMARIES_UNSPECIFIED = 2
    PRIMARIES_BT470_M = 4
    PRIMARIES_BT470_BG = 5
    PRIMARIES_ST170_M = 6
    PRIMARIES_ST240_M = 7
    PRIMARIES_FILM = 8
    PRIMARIES_BT2020 = 9
    PRIMARIES_ST428 = 10
    PRIMARIES_ST431_2 = 11
    PRIMARIES_ST432_1 = 12
    PRIMARIES_EBU3213_E = 22


def _upper_snake(name):
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and (name[i - 1].islower() or (i + 1 < len(name) and name[i + 1].islower())):
            out.append('_')
        out.append(ch.upper())
    return ''.join(out)


# pfGray8 -> GRAY8, pfYUV420P10 -> YUV420P10, pfRGBH -> RGBH, pfNone -> NONE
PresetVideoFormat = _enum.IntEnum('PresetVideoFormat', [(n[2:].upper(), v) for n, v in _PRESETS.items()])
PresetFormat = PresetVideoFormat
# acFrontLeft -> FRONT_LEFT, acFrontLeftOFCenter -> FRONT_LEFT_OF_CENTER
AudioChannels = _enum.IntEnum(
    'AudioChannels', [(_upper_snake(n[2:]).replace('_O_F_', '_OF_').replace('OFCENTER', 'OF_CENTER'), v) for n, v in _CHANNELS.items()]
)
for _cls in (PresetVideoFormat, AudioChannels):
    _cls.__module__ = __name__

for _cls in (MessageType, FilterMode, CoreCreationFlags, MediaType, ColorFamily, SampleType, Range, ChromaLocation,
             FieldBased, MatrixCoefficients, TransferCharacteristics, ColorPrimaries, PresetVideoFormat, AudioChannels):
    _cls.__module__ = __name__
    globals().update(_cls.__members__)
del _cls


class VideoOutputTuple(_typing.NamedTuple):
    clip: 'VideoNode'
    alpha: 'VideoNode | None'
    alt_output: int


class VapourSynthVersion(_typing.NamedTuple):
    release_major: int
    release_minor: int

    def __str__(self):
        return f'R{self.release_major}' + (f'.{self.release_minor}' if self.release_minor else '')


class VapourSynthAPIVersion(_typing.NamedTuple):
    api_major: int
    api_minor: int

    def __str__(self):
        return f'R{self.api_major}.{self.api_minor}'


class PluginVersion(_typing.NamedTuple):
    major: int
    minor: int


__version__ = VapourSynthVersion(_CORE_VERSION, 0)
__api_version__ = VapourSynthAPIVersion(_API_MAJOR, _API_MINOR)

_abc.MutableMapping.register(FrameProps)
del _PRESETS, _CHANNELS, _CORE_VERSION, _API_MAJOR, _API_MINOR
