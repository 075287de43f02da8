"""extract-dir.py PREFIX DEST < TAR.XZ: extract the members under PREFIX
from an xz-compressed tar on stdin into DEST, and stop reading once they
have gone by (a directory's members are contiguous in a tar), so the
rest of the archive is never decompressed. build-siw.sh uses it for
drivers/infiniband/sw/siw out of linux-source."""
import sys
import tarfile

prefix, dest = sys.argv[1], sys.argv[2]
extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
seen = False
with tarfile.open(fileobj=sys.stdin.buffer, mode="r|xz") as tar:
    for member in tar:
        if member.name.startswith(prefix):
            seen = True
            tar.extract(member, dest, **extra)
        elif seen:
            break
sys.exit(0 if seen else 1)
