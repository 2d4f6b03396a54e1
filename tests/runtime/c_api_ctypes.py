#!/usr/bin/env python3
"""The C API from Python through ctypes, as docs/runtime.md shows: loads libgpurt (argv[1]) with
dlopen, locks 4 of 16 units and gives them back. A library that dlopen refuses (e.g. a static
TLS block it cannot get, which the statically linked CUDA runtime asked for) fails here."""
import ctypes
import os
import sys

lib = ctypes.CDLL(sys.argv[1])
Mask = ctypes.c_uint64 * 4
lib.gpurt_smlp_open.restype = ctypes.c_void_p
lib.gpurt_smlp_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
lib.gpurt_smlp_lock.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int,
                                ctypes.POINTER(Mask)]
lib.gpurt_smlp_unlock.argtypes = [ctypes.c_void_p, ctypes.POINTER(Mask)]
lib.gpurt_smlp_close.argtypes = [ctypes.c_void_p]
lib.gpurt_smlp_unlink.argtypes = [ctypes.c_char_p]
name = f"gpurt-ctypes-{os.getpid()}".encode()
lock = lib.gpurt_smlp_open(name, 16, 0)
assert lock, "gpurt_smlp_open failed"
sizes = (ctypes.c_int * 3)(1, 2, 4)
mask = Mask()
granted = lib.gpurt_smlp_lock(lock, sizes, 3, 0, ctypes.byref(mask))
assert granted == 4 and mask[0] == 0xF, (granted, mask[0])
assert lib.gpurt_smlp_unlock(lock, ctypes.byref(mask)) == 0
lib.gpurt_smlp_close(lock)
assert lib.gpurt_smlp_unlink(name) == 0
print("c_api_ctypes: ok")
