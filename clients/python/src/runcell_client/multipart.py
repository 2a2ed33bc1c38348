"""multipart.py - the sessions API's bodies: multipart/form-data requests
(fields and files named by sub_path, filename* as RFC 5987) and the
multipart/mixed answers of an execution (a JSON part, then one part per
file, its sub_path in filename*)."""
import json
import re
import urllib.parse
import uuid
from typing import Any, Dict, Iterable, List, Tuple, Union

Data = Union[bytes, str]


def _bytes(v: Data) -> bytes:
    return v.encode("utf-8") if isinstance(v, str) else v


def form_data(fields: Iterable[Tuple[str, Data]] = (),
              files: Iterable[Tuple[str, Data]] = ()) -> Tuple[bytes, str]:
    """(body, content type) of a multipart/form-data request; files go as
    name="attachments" with the exact sub_path in filename*."""
    boundary = "runcell-" + uuid.uuid4().hex
    out: List[bytes] = []
    for name, value in fields:
        out.append(b"--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n"
                   % (boundary.encode(), name.encode()))
        out.append(_bytes(value) + b"\r\n")
    for path, data in files:
        quoted = urllib.parse.quote(path, safe="")
        plain = re.sub(r"[^A-Za-z0-9._-]", "_", path) or "file"
        out.append(("--%s\r\nContent-Disposition: form-data; name=\"attachments\"; filename=\"%s\";"
                    " filename*=UTF-8''%s\r\nContent-Type: application/octet-stream\r\n\r\n"
                    % (boundary, plain, quoted)).encode())
        out.append(_bytes(data) + b"\r\n")
    out.append(b"--%s--\r\n" % boundary.encode())
    return b"".join(out), "multipart/form-data; boundary=" + boundary


def parse_mixed(content_type: str, body: bytes) -> Tuple[Dict[str, Any], Dict[str, bytes]]:
    """(the JSON of the first part, {sub_path: bytes} of the others)."""
    m = re.search(r'boundary="?([^";]+)"?', content_type)
    if not content_type.startswith("multipart/mixed") or not m:
        raise ValueError("not multipart/mixed: %r" % content_type)
    delim = b"--" + m.group(1).encode()
    chunks = body.split(delim)
    parts: List[Tuple[Dict[str, str], bytes]] = []
    for chunk in chunks[1:]:
        if chunk.startswith(b"--"):
            break
        chunk = chunk[2:] if chunk.startswith(b"\r\n") else chunk
        head, _, data = chunk.partition(b"\r\n\r\n")
        if data.endswith(b"\r\n"):
            data = data[:-2]
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        parts.append((headers, data))
    if not parts:
        raise ValueError("multipart/mixed answer without parts")
    info = json.loads(parts[0][1].decode("utf-8"))
    files: Dict[str, bytes] = {}
    for headers, data in parts[1:]:
        disp = headers.get("content-disposition", "")
        ext = re.search(r"filename\*=UTF-8''([^;\s]+)", disp)
        plain = re.search(r'filename="([^"]*)"', disp)
        name = urllib.parse.unquote(ext.group(1)) if ext else (plain.group(1) if plain else "")
        files[name] = data
    return info, files
