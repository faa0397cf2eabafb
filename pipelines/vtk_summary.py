#!/usr/bin/python3
"""Read VTK XML files with VTK's own readers and print what they hold; exit 1 if VTK
reports any error. Used by the demo to prove ParaView will open what ldem wrote."""
import sys

import vtk


class ErrorCatcher:
    def __init__(self):
        self.messages = []

    def __call__(self, obj, event):
        self.messages.append(event)


def read(path):
    readers = {".vtu": vtk.vtkXMLUnstructuredGridReader,
               ".vti": vtk.vtkXMLImageDataReader}
    suffix = path[path.rfind("."):]
    if suffix not in readers:
        raise SystemExit(f"vtk_summary: error: {path}: unsupported file type")
    reader = readers[suffix]()
    catcher = ErrorCatcher()
    reader.AddObserver("ErrorEvent", catcher)
    reader.AddObserver("WarningEvent", catcher)
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    if catcher.messages or data is None or data.GetNumberOfPoints() == 0:
        raise SystemExit(f"vtk_summary: error: {path}: VTK could not read it")
    pd = data.GetPointData()
    arrays = ", ".join(pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays()))
    print(f"{path}: {data.GetNumberOfPoints()} points, {data.GetNumberOfCells()} cells; "
          f"point arrays: {arrays}")


for p in sys.argv[1:]:
    read(p)
