{-# LANGUAGE OverloadedStrings #-}
-- CbRuntime.hs - what a client-generated Checker.hs relies on (runcell's
-- Haskell contract; Codebattle has no current Haskell image).
--
-- Checker.hs is `module Main`, imports CbRuntime and Solution, and runs
--   main = runChecks $ do
--     let a1 = 1 :: Int
--     runTest (solution a1 b1)
--     ...
-- runTest fully evaluates the result (its JSON encoding), times it, and
-- prints one item per line:
--   {"type":"result","value":<json>,"output":"","time":"0.0000012"}
-- The solution is pure, so "output" is always empty (Debug.Trace goes to
-- stderr).  An exception (error, pattern failure, division by zero) prints
-- {"type":"error","value":"<message>"} and stops, keeping the items before
-- it, as Codebattle's cpp checker does; the exit status stays 0.
module CbRuntime (runChecks, runTest) where

import Control.Exception (SomeException, evaluate, try, displayException)
import qualified Data.Aeson as A
import Data.Aeson ((.=))
import qualified Data.ByteString.Lazy.Char8 as BL
import GHC.Clock (getMonotonicTimeNSec)
import System.IO (hFlush, hSetEncoding, stdout, utf8)
import Text.Printf (printf)

runTest :: A.ToJSON a => a -> IO ()
runTest value = do
  start <- getMonotonicTimeNSec
  let encoded = A.encode value
  _ <- evaluate (BL.length encoded)
  end <- getMonotonicTimeNSec
  let seconds = fromIntegral (end - start) / 1e9 :: Double
  BL.putStrLn $ BL.concat
    [ "{\"type\":\"result\",\"value\":", encoded
    , ",\"output\":\"\",\"time\":", A.encode (printf "%.7f" seconds :: String), "}" ]

runChecks :: IO () -> IO ()
runChecks checks = do
  hSetEncoding stdout utf8
  outcome <- try checks
  case outcome of
    Right () -> return ()
    Left e -> BL.putStrLn $ A.encode $ A.object
      [ "type" .= ("error" :: String)
      , "value" .= displayException (e :: SomeException) ]
  hFlush stdout
