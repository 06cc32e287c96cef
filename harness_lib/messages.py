"""CONTRACT placeholder: being written."""
from typing import Any
Message = dict[str, Any]
