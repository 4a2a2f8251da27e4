"""The zip container of a torch.save checkpoint, read as torch's reader reads it, or refused.

torch.load takes a file for a zip checkpoint only when its first bytes are a local file header
(anything else goes to the legacy unpickler), then reads it with miniz: the last end-of-central-
directory record, the central directory at the absolute offset that record names, each record at its
absolute offset, a member looked up by its exact name bytes. Python's zipfile reads some files
differently (it shifts every offset when the directory is not where the end record says, so two
concatenated archives or junk before one read as the second/inner archive; it truncates a name at a
NUL byte; a duplicate name finds the last member), so a checkpoint could hold other weights in
webtorch than in torch. This reader follows miniz and refuses whatever the two could read apart:
duplicate names, NUL in a name, bytes between the central directory and the end record, a record
whose local header disagrees with the directory or whose data runs into the directory, a stored
record whose sizes differ, a CRC mismatch. Offsets count from where the file was positioned at open.
"""
import struct
import zlib

_LOCAL = b"PK\x03\x04"
_CENTRAL = b"PK\x01\x02"
_END = b"PK\x05\x06"
_ZIP64_END = b"PK\x06\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_END_SIZE, _LOCATOR_SIZE, _CENTRAL_SIZE, _LOCAL_SIZE = 22, 20, 46, 30
_MAX_COMMENT = 0xFFFF
_STORED = 0


def corrupt(why):
    """The error for an archive torch's reader refuses (torch raises RuntimeError), or one it could read
    otherwise than this reader."""
    return RuntimeError(f"webtorch.load: corrupt or truncated checkpoint archive ({why})")


def starts_as_zip(head):
    """torch.serialization._is_zipfile: a zip checkpoint begins with a local file header."""
    return head[:4] == _LOCAL


class Record:
    """One member's central directory entry: size uncompressed, stored_size in the file."""
    __slots__ = ("name", "method", "crc", "size", "stored_size", "header_offset")

    def __init__(self, name, method, crc, size, stored_size, header_offset):
        self.name, self.method, self.crc = name, method, crc
        self.size, self.stored_size, self.header_offset = size, stored_size, header_offset


class Archive:
    """The records of a zip archive in directory order, by name; read(name) gives a record's bytes."""

    def __init__(self, file):
        self.file, self.start = file, file.tell()
        file.seek(0, 2)
        self.nbytes = file.tell() - self.start
        self.records = {}
        directory_offset, directory_size, count = self._end_record()
        self.directory_offset = directory_offset
        data = self._read(directory_offset, directory_size)
        at = 0
        for _ in range(count):
            if data[at:at + 4] != _CENTRAL or len(data) < at + _CENTRAL_SIZE:
                raise corrupt("a central directory entry is missing its signature")
            (flags, method, crc, stored_size, size, name_len, extra_len, comment_len, disk,
             header_offset) = struct.unpack("<8xHH4xIIIHHHH6xI", data[at:at + _CENTRAL_SIZE])
            name = data[at + _CENTRAL_SIZE:at + _CENTRAL_SIZE + name_len]
            extra = data[at + _CENTRAL_SIZE + name_len:at + _CENTRAL_SIZE + name_len + extra_len]
            at += _CENTRAL_SIZE + name_len + extra_len + comment_len
            if at > len(data):
                raise corrupt("a central directory entry runs past the directory")
            size, stored_size, header_offset = _zip64_fields(extra, size, stored_size, header_offset)
            self._add(name, method, crc, size, stored_size, header_offset, flags, disk)
        if at != len(data):
            raise corrupt(f"the central directory holds {len(data) - at} bytes after its {count} entries")

    def _read(self, offset, n):
        if offset < 0 or n < 0 or offset + n > self.nbytes:
            raise corrupt(f"{n} bytes at offset {offset} lie outside the {self.nbytes}-byte file")
        self.file.seek(self.start + offset)
        data = self.file.read(n)
        if len(data) != n:
            raise corrupt("the file ended early")
        return data

    def _end_record(self):
        """(directory offset, size, entry count) from the last end record, as miniz finds it."""
        tail_start = max(0, self.nbytes - _END_SIZE - _MAX_COMMENT)
        tail = self._read(tail_start, self.nbytes - tail_start)
        at = tail.rfind(_END, 0, max(0, len(tail) - _END_SIZE + 4))
        if at < 0:
            raise corrupt("no zip end of central directory record")
        end = tail_start + at
        disk, directory_disk, on_disk, count, size, offset = struct.unpack("<4H2I", tail[at + 4:at + 20])
        directory_end = end
        locator = end - _LOCATOR_SIZE
        if locator >= 0 and self._read(locator, 4) == _ZIP64_LOCATOR:
            (zip64_end,) = struct.unpack("<4xIQI", self._read(locator, _LOCATOR_SIZE))[1:2]
            record = self._read(zip64_end, 56)
            if record[:4] != _ZIP64_END:
                raise corrupt("the zip64 end record is missing")
            disk, directory_disk, on_disk, count, size, offset = struct.unpack("<II4Q", record[16:56])
            directory_end = zip64_end
        if disk or directory_disk or on_disk != count:
            raise corrupt("a multi-disk archive")
        if offset + size != directory_end:
            raise corrupt(f"the central directory ends at {offset + size} but its end record is at "
                                 f"{directory_end} (two archives concatenated, or bytes inserted?)")
        return offset, size, count

    def _add(self, raw_name, method, crc, size, stored_size, header_offset, flags, disk):
        if b"\0" in raw_name:
            raise corrupt(f"member name {raw_name!r} holds a NUL byte")
        name = raw_name.decode("utf-8", "surrogateescape")
        if name in self.records:
            raise corrupt(f"two members are named {name!r}")
        if flags & 1 or disk:
            raise corrupt(f"member {name!r} is encrypted or on another disk")
        if method == _STORED and stored_size != size:
            raise corrupt(f"stored member {name!r} is {stored_size} bytes but its directory entry says "
                                 f"{size} uncompressed")
        self.records[name] = Record(name, method, crc, size, stored_size, header_offset)

    def names(self):
        return list(self.records)

    def data_range(self, record):
        """(offset, size) of a record's data, checked against its local header and the directory."""
        header = self._read(record.header_offset, _LOCAL_SIZE)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        if header[:4] != _LOCAL or self._read(record.header_offset + _LOCAL_SIZE, name_len) != \
                record.name.encode("utf-8", "surrogateescape"):
            raise corrupt(f"member {record.name!r}: its local header does not match the directory")
        start = record.header_offset + _LOCAL_SIZE + name_len + extra_len
        if start + record.stored_size > self.directory_offset:
            raise corrupt(f"member {record.name!r} runs into the central directory")
        return start, record.stored_size

    def read(self, name):
        """A stored record's bytes, exactly its directory size, CRC-checked."""
        record = self.records[name]
        if record.method != _STORED:
            raise corrupt(f"record {name} is compressed, which torch.save never writes")
        data = self._read(*self.data_range(record))
        if zlib.crc32(data) != record.crc:
            raise corrupt(f"bad CRC-32 for record {name}")
        return data


def _zip64_fields(extra, size, stored_size, header_offset):
    """The zip64 extended-information field's values for the 32-bit fields set to 0xFFFFFFFF."""
    fields = [size, stored_size, header_offset]
    if 0xFFFFFFFF not in fields:
        return fields
    at = 0
    while at + 4 <= len(extra):
        kind, n = struct.unpack("<HH", extra[at:at + 4])
        if kind == 1:
            values = iter(struct.unpack(f"<{n // 8}Q", extra[at + 4:at + 4 + n - n % 8]))
            try:
                return [next(values) if v == 0xFFFFFFFF else v for v in fields]
            except StopIteration:
                break
        at += 4 + n
    raise corrupt("a zip64 entry lacks its extended sizes")
