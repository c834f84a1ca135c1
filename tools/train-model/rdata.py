"""Minimal pure-Python reader for R lazy-load databases (.rdx/.rdb).

Only what janeaustenr needs: character vectors (plus enough of the XDR
serialization format to skip over pairlists, attributes and small vectors).
Format reference: R's src/main/serialize.c and lazyload (R_decompress1/2/3).
"""
import bz2
import gzip
import lzma
import struct
import zlib

NILVALUE, GLOBALENV, UNBOUND, MISSINGARG, BASENS = 254, 253, 252, 251, 250
EMPTYENV, BASEENV, REFSXP, ALTREP = 242, 241, 255, 238
ATTRLANG, ATTRLIST = 240, 239
SYMSXP, LISTSXP, CLOSXP, ENVSXP, PROMSXP, LANGSXP = 1, 2, 3, 4, 5, 6
CHARSXP, LGLSXP, INTSXP, REALSXP, CPLXSXP, STRSXP = 9, 10, 13, 14, 15, 16
DOTSXP, VECSXP, EXPRSXP, RAWSXP = 17, 19, 20, 24


class RSym:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"RSym({self.name!r})"


class RObj:
    """Vector/list value with R attributes (names, class, ...)."""

    def __init__(self, value, attrs):
        self.value, self.attrs = value, attrs


class Reader:
    def __init__(self, buf):
        self.b, self.p, self.refs = buf, 0, []

    def int(self):
        (v,) = struct.unpack_from(">i", self.b, self.p)
        self.p += 4
        return v

    def length(self):
        n = self.int()
        if n == -1:  # long vector: two ints
            hi, lo = self.int(), self.int()
            n = (hi << 32) + lo
        return n

    def header(self):
        if self.b[:2] != b"X\n":
            raise ValueError("only XDR ('X\\n') serialization is supported")
        self.p = 2
        version = self.int()
        self.int(), self.int()  # writer R version, minimal R version
        if version == 3:
            n = self.int()
            self.p += n  # native encoding name
        return self.item()

    def attrs_to_dict(self, pl):
        out = {}
        while isinstance(pl, tuple):
            tag, car, pl = pl
            out[tag.name if isinstance(tag, RSym) else str(tag)] = car
        return out

    def item(self):
        flags = self.int()
        t = flags & 0xFF
        has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        if t in (NILVALUE, GLOBALENV, UNBOUND, MISSINGARG, BASENS, EMPTYENV, BASEENV):
            return None
        if t == REFSXP:
            idx = flags >> 8
            return self.refs[(idx or self.int()) - 1]
        if t == SYMSXP:
            s = RSym(self.item())
            self.refs.append(s)
            return s
        if t in (LISTSXP, LANGSXP, CLOSXP, PROMSXP, DOTSXP, ATTRLANG, ATTRLIST):
            attr = self.item() if has_attr else None
            tag = self.item() if has_tag else None
            car = self.item()
            cdr = self.item()
            return (tag, car, cdr)
        if t == CHARSXP:
            n = self.int()
            if n == -1:
                return None  # NA_character_
            s = self.b[self.p:self.p + n]
            self.p += n
            enc = "latin-1" if flags & (1 << 12 + 2) else "utf-8"  # LATIN1_MASK
            return s.decode(enc, errors="replace")
        if t == ENVSXP:
            raise ValueError("environments are not supported")
        if t == ALTREP:
            info, state, attr = self.item(), self.item(), self.item()
            cls = info[1].name if isinstance(info, tuple) else "?"
            if cls == "compact_intseq":  # state: REALSXP (n, start, step)
                n, start, step = (int(x) for x in state)
                return list(range(start, start + n * step, step))
            if cls in ("wrap_string", "wrap_integer", "wrap_real", "wrap_logical"):
                return state[1] if isinstance(state, tuple) else state
            raise ValueError(f"unsupported ALTREP class {cls}")
        if t in (LGLSXP, INTSXP):
            n = self.length()
            v = list(struct.unpack_from(f">{n}i", self.b, self.p))
            self.p += 4 * n
        elif t == REALSXP:
            n = self.length()
            v = list(struct.unpack_from(f">{n}d", self.b, self.p))
            self.p += 8 * n
        elif t == CPLXSXP:
            n = self.length()
            self.p += 16 * n
            v = None
        elif t == RAWSXP:
            n = self.length()
            v = self.b[self.p:self.p + n]
            self.p += n
        elif t in (STRSXP, VECSXP, EXPRSXP):
            n = self.length()
            v = [self.item() for _ in range(n)]
        else:
            raise ValueError(f"unsupported SEXP type {t}")
        if has_attr:
            return RObj(v, self.attrs_to_dict(self.item()))
        return v


def decompress(blob):
    """R_decompress1/2/3: 4-byte big-endian length, optional type byte."""
    (n,) = struct.unpack_from(">I", blob, 0)
    body = blob[4:]
    kind = body[:1]
    if kind == b"Z":
        out = zlib.decompress(body[1:])
    elif kind == b"2":
        out = bz2.decompress(body[1:])
    elif kind == b"X":
        out = lzma.decompress(body[1:])
    elif kind == b"0":
        out = body[1:]
    else:
        out = zlib.decompress(body)  # R_decompress1: plain zlib stream
    if len(out) != n:
        raise ValueError("decompressed length mismatch")
    return out


def _plain(x):
    return x.value if isinstance(x, RObj) else x


def load_lazy_db(base):
    """Return {name: value} for every variable in base.rdx/base.rdb."""
    with gzip.open(base + ".rdx", "rb") as f:
        index = Reader(f.read()).header()
    index = index if isinstance(index, RObj) else RObj(index, {})
    names = _plain(index.attrs["names"])
    parts = dict(zip(names, index.value))
    var_names = _plain(parts["variables"].attrs["names"])
    offsets = _plain(parts["variables"].value)
    with open(base + ".rdb", "rb") as f:
        rdb = f.read()
    out = {}
    for name, off in zip(var_names, offsets):
        start, length = (int(x) for x in _plain(off))
        out[name] = Reader(decompress(rdb[start:start + length])).header()
    return out


if __name__ == "__main__":
    import sys

    db = load_lazy_db(sys.argv[1] if len(sys.argv) > 1 else
                      "/usr/lib/R/site-library/janeaustenr/data/Rdata")
    for k, v in db.items():
        v = _plain(v)
        print(k, type(v).__name__, len(v), repr(v[:3]) if isinstance(v, list) else "")
