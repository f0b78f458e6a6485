#!/usr/bin/env python3
"""Compares the kernels of two PTX files made from the CUDA module's kernel_dispatch.cu, names aside.

Usage: ptx_compare.py OLD.ptx NEW.ptx

Each `.visible .entry` is one kernel instance; its text is compared with the kernel's own name,
every other mangled name, and the function-numbered labels ($L__BB<n>_, $L__tmp<n>) made equal. A
line per new kernel says SAME (and which old kernel it equals) or DIFF. Made for the refactor of
this entry: kernels whose template arguments moved from numbers to catalogue rows.
"""
import re, sys, difflib
def kernels(path):
    text = open(path).read()
    parts = re.split(r'\n(?=\.visible \.entry )', text)
    out = {}
    for p in parts[1:]:
        name = re.match(r'\.visible \.entry (\S+)\(', p).group(1)
        out[name] = p
    return out
def norm(name, body):
    body = body.replace(name, 'K')
    body = re.sub(r'_Z\w+', 'SYM', body)
    body = re.sub(r'\$L__BB\d+_', '$L__BB_', body)
    body = re.sub(r'\$L__tmp\d+', '$L__tmp', body)
    return body
old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
oldn = {}
for n, b in old.items(): oldn.setdefault(norm(n, b), []).append(n)
matched = 0
for n, b in new.items():
    key = norm(n, b)
    if key in oldn: matched += 1; print('SAME ', n[24:90], '==', oldn[key][0][14:60])
    else: print('DIFF ', n[24:110])
print('matched', matched, 'of', len(new))
