#!/bin/sh
# Placeholder until the CLI cases land.
echo "0 passed, 0 failed"; exit 77
