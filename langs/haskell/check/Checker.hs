module Main (main) where

import qualified Data.Map as Map
import CbRuntime
import Solution

main :: IO ()
main = runChecks $ do
  let a1 = 1 :: Int
  let b1 = 1 :: Int
  runTest (solution a1 b1)
  let a2 = 2 :: Int
  let b2 = 1 :: Int
  runTest (solution a2 b2)
  let a3 = 3 :: Int
  let b3 = 2 :: Int
  runTest (solution a3 b3)
