// Device code in another translation unit: relocatable device code.
#pragma once

extern __device__ float plain_square(float x);
